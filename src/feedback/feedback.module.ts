import { Module } from '@nestjs/common';
import { AttachmentsDataModule } from '../attachments/attachments-data.module';
import { IssueServicesModule } from '../issues/issue-services.module';
import { ProjectsModule } from '../projects/projects.module';
import { FeedbackController } from './feedback.controller';
import { FeedbackDataModule } from './feedback-data.module';
import { FeedbackService } from './feedback.service';

/** The feedback API (role `api`). */
@Module({
  imports: [FeedbackDataModule, AttachmentsDataModule, ProjectsModule, IssueServicesModule],
  controllers: [FeedbackController],
  providers: [FeedbackService],
})
export class FeedbackModule {}
