import { Module } from '@nestjs/common';
import { InboundFiltersRepository } from './inbound-filters.repository';
import { Clock } from '../common/clock';
import { PrivacySettingsRepository } from './privacy-settings.repository';
import { QuotasRepository } from './quotas/quotas.repository';

/**
 * The data protection settings, inbound filter and quota rows, for the digest, ingest and the API;
 * and the clock quotas and spike protection go by (one instance, so a test moves it everywhere at once).
 */
@Module({
  providers: [PrivacySettingsRepository, InboundFiltersRepository, QuotasRepository, Clock],
  exports: [PrivacySettingsRepository, InboundFiltersRepository, QuotasRepository, Clock],
})
export class PrivacyDataModule {}
