import { Module } from '@nestjs/common';
import { Clock } from '../common/clock';
import { PrivacySettingsRepository } from './privacy-settings.repository';
import { QuotasRepository } from './quotas/quotas.repository';

/**
 * The data protection settings rows, for the digest, ingest and the API; and the clock quotas and
 * spike protection go by (one instance, so a test moves it everywhere at once).
 */
@Module({
  providers: [PrivacySettingsRepository, QuotasRepository, Clock],
  exports: [PrivacySettingsRepository, QuotasRepository, Clock],
})
export class PrivacyDataModule {}
