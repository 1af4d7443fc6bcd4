import { Module } from '@nestjs/common';
import { InboundFiltersRepository } from './inbound-filters.repository';
import { PrivacySettingsRepository } from './privacy-settings.repository';

/** The data protection settings and inbound filter rows, for the digest, ingest and the API. */
@Module({
  providers: [PrivacySettingsRepository, InboundFiltersRepository],
  exports: [PrivacySettingsRepository, InboundFiltersRepository],
})
export class PrivacyDataModule {}
