import { Module } from '@nestjs/common';
import { AttachmentsDataModule } from '../../attachments/attachments-data.module';
import { EventsDataModule } from '../../events/events-data.module';
import { FeedbackDataModule } from '../../feedback/feedback-data.module';
import { IssuesDataModule } from '../../issues/issues-data.module';
import { ProjectsDataModule } from '../../projects/projects-data.module';
import { ReleasesDataModule } from '../../releases/releases-data.module';
import { RollupsDataModule } from '../../rollups/rollups-data.module';
import { ErasureService } from './erasure.service';

/** Erasing a person's data, without routes: for the API and the command line. */
@Module({
  imports: [
    ProjectsDataModule,
    EventsDataModule,
    IssuesDataModule,
    RollupsDataModule,
    ReleasesDataModule,
    FeedbackDataModule,
    AttachmentsDataModule,
  ],
  providers: [ErasureService],
  exports: [ErasureService],
})
export class ErasureModule {}
