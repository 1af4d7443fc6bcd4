import { Module } from '@nestjs/common';
import { StatusPagesRepository } from './status-pages.repository';
import { UptimeChecksRepository } from './uptime-checks.repository';
import { UptimeMonitorsRepository } from './uptime-monitors.repository';

/** The uptime monitors' rows, their checks and the status pages, for the API, the checks and retention. */
@Module({
  providers: [UptimeMonitorsRepository, UptimeChecksRepository, StatusPagesRepository],
  exports: [UptimeMonitorsRepository, UptimeChecksRepository, StatusPagesRepository],
})
export class UptimeDataModule {}
