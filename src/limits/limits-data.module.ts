import { Module } from '@nestjs/common';
import { Clock } from '../common/clock';
import { QuotasRepository } from './quotas.repository';

/**
 * The quota and spike rows, for ingest, the minute job and the API; and the clock quotas and spike
 * protection go by (one instance, so a test moves it everywhere at once).
 */
@Module({
  providers: [QuotasRepository, Clock],
  exports: [QuotasRepository, Clock],
})
export class LimitsDataModule {}
