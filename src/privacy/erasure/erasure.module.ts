import { Module } from '@nestjs/common';
import { AttachmentsDataModule } from '../../attachments/attachments-data.module';
import { EventsDataModule } from '../../events/events-data.module';
import { FeedbackDataModule } from '../../feedback/feedback-data.module';
import { IssuesDataModule } from '../../issues/issues-data.module';
import { ProjectsDataModule } from '../../projects/projects-data.module';
import { ReleasesDataModule } from '../../releases/releases-data.module';
import { RollupsDataModule } from '../../rollups/rollups-data.module';
import { ReleaseHealthRepository } from '../../releases/health/release-health.repository';
import { ErasureService } from './erasure.service';
import { PersonTracesService } from './person-traces.service';

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
  // The release health repository alone: its module's services need the shared Redis client,
  // which the command line does not open.
  providers: [ErasureService, PersonTracesService, ReleaseHealthRepository],
  exports: [ErasureService],
})
export class ErasureModule {}
