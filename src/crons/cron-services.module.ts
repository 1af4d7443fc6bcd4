import { Module } from '@nestjs/common';
import { CheckInStoreService } from './check-in-store.service';
import { CronClock } from './cron-clock';
import { CronClockService } from './cron-clock.service';
import { CronsDataModule } from './crons-data.module';
import { LoggedMonitorIncidents, MONITOR_INCIDENTS } from './monitor-incidents.port';

/**
 * The cron monitors' services without routes, for the workers (storing check-ins, the clock) and
 * the API.
 */
@Module({
  imports: [CronsDataModule],
  providers: [
    CheckInStoreService,
    CronClock,
    CronClockService,
    { provide: MONITOR_INCIDENTS, useClass: LoggedMonitorIncidents },
  ],
  exports: [CheckInStoreService, CronClock, CronClockService, CronsDataModule, MONITOR_INCIDENTS],
})
export class CronServicesModule {}
