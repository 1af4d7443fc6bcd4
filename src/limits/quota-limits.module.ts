import { Module } from '@nestjs/common';
import { LimitsDataModule } from './limits-data.module';
import { QuotaLimitsService } from './quota-limits.service';
import { QuotaRefusalsService } from './quota-refusals.service';

/** Publishing each project's limits to Redis, and following its spikes: for the API and the minute job. */
@Module({
  imports: [LimitsDataModule],
  providers: [QuotaLimitsService, QuotaRefusalsService],
  exports: [QuotaLimitsService, QuotaRefusalsService, LimitsDataModule],
})
export class QuotaLimitsModule {}
