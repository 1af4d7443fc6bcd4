import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { PrivacyController } from './privacy.controller';
import { PrivacyDataModule } from './privacy-data.module';
import { PrivacySettingsService } from './privacy-settings.service';

/** The data protection API (role `api`). */
@Module({
  imports: [PrivacyDataModule, ProjectsModule],
  controllers: [PrivacyController],
  providers: [PrivacySettingsService],
})
export class PrivacyModule {}
