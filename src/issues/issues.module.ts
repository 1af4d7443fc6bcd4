import { Module } from '@nestjs/common';
import { MembersDataModule } from '../members/members-data.module';
import { ProjectsModule } from '../projects/projects.module';
import { IssueCommentsController } from './issue-comments.controller';
import { IssueCommentsService } from './issue-comments.service';
import { IssuesController } from './issues.controller';
import { IssuesDataModule } from './issues-data.module';

/** The issues API (role `api`). */
@Module({
  imports: [IssuesDataModule, ProjectsModule, MembersDataModule],
  controllers: [IssuesController, IssueCommentsController],
  providers: [IssueCommentsService],
  exports: [IssuesDataModule],
})
export class IssuesModule {}
