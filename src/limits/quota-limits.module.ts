import { Module } from '@nestjs/common';
import { LimitsDataModule } from './limits-data.module';
import { QuotaLimitsService } from './quota-limits.service';

/** Publishing each project's limits to Redis, and following its spikes: for the API and the minute job. */
@Module({
  imports: [LimitsDataModule],
  providers: [QuotaLimitsService],
  exports: [QuotaLimitsService, LimitsDataModule],
})
export class QuotaLimitsModule {}
