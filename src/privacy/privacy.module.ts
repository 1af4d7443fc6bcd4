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

/** The data protection API (role `api`): scrubbing settings, inbound filters, erasing a person's data. */
@Module({
  imports: [
    PrivacyDataModule,
    ProjectsModule,
    OutcomesDataModule,
    InboundFilterSnapshotModule,
    ErasureModule,
  ],
  controllers: [PrivacyController, InboundFiltersController, ErasureController],
  providers: [PrivacySettingsService, InboundFiltersService],
})
export class PrivacyModule {}
