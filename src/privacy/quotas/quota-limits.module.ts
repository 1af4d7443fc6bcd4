import { Module } from '@nestjs/common';
import { PrivacyDataModule } from '../privacy-data.module';
import { QuotaLimitsService } from './quota-limits.service';

/** Publishing each project's limits to Redis, and following its spikes: for the API and the minute job. */
@Module({
  imports: [PrivacyDataModule],
  providers: [QuotaLimitsService],
  exports: [QuotaLimitsService, PrivacyDataModule],
})
export class QuotaLimitsModule {}
