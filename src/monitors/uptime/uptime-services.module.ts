import { Module } from '@nestjs/common';
import { UptimeChecker } from './uptime-checker';
import { UptimeClock } from './uptime-clock';
import { MonitorUptimeIncidents, UptimeIncidents } from './uptime-incidents';
import { MonitorIncidentsModule } from '../incidents/monitor-incidents.module';
import { UptimeDataModule } from './uptime-data.module';

/** What both the API and the checks need: the clock, the checker, the monitor issues. No routes. */
@Module({
  imports: [UptimeDataModule, MonitorIncidentsModule],
  providers: [UptimeClock, UptimeChecker, { provide: UptimeIncidents, useClass: MonitorUptimeIncidents }],
  exports: [UptimeDataModule, UptimeClock, UptimeChecker, UptimeIncidents],
})
export class UptimeServicesModule {}
