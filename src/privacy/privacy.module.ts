import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { PrivacyController } from './privacy.controller';
import { PrivacyDataModule } from './privacy-data.module';
import { PrivacySettingsService } from './privacy-settings.service';
import { QuotaLimitsModule } from './quotas/quota-limits.module';
import { QuotasController } from './quotas/quotas.controller';
import { QuotasService } from './quotas/quotas.service';

/** The data protection API (role `api`). */
@Module({
  imports: [PrivacyDataModule, QuotaLimitsModule, ProjectsModule],
  controllers: [PrivacyController, QuotasController],
  providers: [PrivacySettingsService, QuotasService],
})
export class PrivacyModule {}
