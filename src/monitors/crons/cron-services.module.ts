import { Module } from '@nestjs/common';
import { CheckInStoreService } from './check-in-store.service';
import { CronClock } from './cron-clock';
import { CronClockService } from './cron-clock.service';
import { CronsDataModule } from './crons-data.module';
import { JobsModule } from '../../jobs/jobs.module';
import { MonitorIncidentsModule } from '../incidents/monitor-incidents.module';

/**
 * The cron monitors' services without routes, for the workers (storing check-ins, the clock) and
 * the API.
 */
@Module({
  imports: [CronsDataModule, MonitorIncidentsModule, JobsModule],
  providers: [CheckInStoreService, CronClock, CronClockService],
  exports: [CheckInStoreService, CronClock, CronClockService, CronsDataModule, MonitorIncidentsModule],
})
export class CronServicesModule {}
