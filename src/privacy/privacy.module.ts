import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { ErasureController } from './erasure/erasure.controller';
import { ErasureModule } from './erasure/erasure.module';
import { PrivacyController } from './privacy.controller';
import { PrivacyDataModule } from './privacy-data.module';
import { PrivacySettingsService } from './privacy-settings.service';

/** The data protection API (role `api`): settings and erasing a person's data. */
@Module({
  imports: [PrivacyDataModule, ProjectsModule, ErasureModule],
  controllers: [PrivacyController, ErasureController],
  providers: [PrivacySettingsService],
})
export class PrivacyModule {}
