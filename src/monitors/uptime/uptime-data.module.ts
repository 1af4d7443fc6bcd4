import { Module } from '@nestjs/common';
import { UptimeChecksRepository } from './uptime-checks.repository';
import { UptimeMonitorsRepository } from './uptime-monitors.repository';

/** The uptime monitors' rows and their checks, for the API, the checks, status pages and retention. */
@Module({
  providers: [UptimeMonitorsRepository, UptimeChecksRepository],
  exports: [UptimeMonitorsRepository, UptimeChecksRepository],
})
export class UptimeDataModule {}
