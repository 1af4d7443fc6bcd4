import { Module } from '@nestjs/common';
import { CheckInsRepository } from './check-ins.repository';
import { CronMonitorsRepository } from './cron-monitors.repository';

/** The cron monitor rows, for the workers, the API and retention. */
@Module({
  providers: [CronMonitorsRepository, CheckInsRepository],
  exports: [CronMonitorsRepository, CheckInsRepository],
})
export class CronsDataModule {}
