import { Module } from '@nestjs/common';
import { UptimeChecker } from './uptime-checker';
import { UptimeClock } from './uptime-clock';
import { NoUptimeIncidents, UptimeIncidents } from './uptime-incidents';
import { UptimeDataModule } from './uptime-data.module';

/** What both the API and the checks need: the clock, the checker, where incidents go. No routes. */
@Module({
  imports: [UptimeDataModule],
  providers: [UptimeClock, UptimeChecker, { provide: UptimeIncidents, useClass: NoUptimeIncidents }],
  exports: [UptimeDataModule, UptimeClock, UptimeChecker, UptimeIncidents],
})
export class UptimeServicesModule {}
