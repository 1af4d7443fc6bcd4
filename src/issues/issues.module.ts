import { AttachmentsModule } from '../attachments/attachments.module';
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { MailModule } from '../mail/mail.module';
import { RollupsModule } from '../rollups/rollups.module';
import { IssueDetailsController } from './issue-details.controller';
import { MemberServicesModule } from '../members/member-services.module';
import { AssignmentMail } from './assignment-mail';
import { ProjectsModule } from '../projects/projects.module';
import { IssueCommentsController } from './issue-comments.controller';
import { IssueCommentsService } from './issue-comments.service';
import { IssuesController } from './issues.controller';
import { IssueServicesModule } from './issue-services.module';

/** The issues API (role `api`). */
@Module({
  imports: [
    IssueServicesModule,
    ProjectsModule,
    MemberServicesModule,
    MailModule,
    EventsModule,
    RollupsModule,
    AttachmentsModule,
  ],
  controllers: [IssuesController, IssueDetailsController, IssueCommentsController],
  providers: [IssueCommentsService, AssignmentMail],
  exports: [IssueServicesModule],
})
export class IssuesModule {}
