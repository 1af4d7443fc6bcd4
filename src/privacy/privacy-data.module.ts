import { Module } from '@nestjs/common';
import { PrivacySettingsRepository } from './privacy-settings.repository';

/** The data protection settings rows, for the digest and the API. */
@Module({
  providers: [PrivacySettingsRepository],
  exports: [PrivacySettingsRepository],
})
export class PrivacyDataModule {}
