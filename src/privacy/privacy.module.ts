import { Module } from '@nestjs/common';
import { OutcomesDataModule } from '../outcomes/outcomes-data.module';
import { ProjectsModule } from '../projects/projects.module';
import { InboundFilterSnapshotModule } from './filters/inbound-filters.module';
import { InboundFiltersController } from './inbound-filters.controller';
import { InboundFiltersService } from './inbound-filters.service';
import { ErasureController } from './erasure/erasure.controller';
import { ErasureModule } from './erasure/erasure.module';
import { PrivacyController } from './privacy.controller';
import { PrivacyDataModule } from './privacy-data.module';
import { PrivacySettingsService } from './privacy-settings.service';
import { QuotaLimitsModule } from './quotas/quota-limits.module';
import { QuotasController } from './quotas/quotas.controller';
import { QuotasService } from './quotas/quotas.service';

/** The data protection API (role `api`): scrubbing settings, inbound filters, quotas and spike protection, erasing a person's data. */
@Module({
  imports: [
    PrivacyDataModule,
    QuotaLimitsModule,
    ProjectsModule,
    OutcomesDataModule,
    InboundFilterSnapshotModule,
    ErasureModule,
  ],
  controllers: [PrivacyController, InboundFiltersController, QuotasController, ErasureController],
  providers: [PrivacySettingsService, InboundFiltersService, QuotasService],
})
export class PrivacyModule {}
