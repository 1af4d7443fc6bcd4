import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AlertTriggersModule } from './transitions/alert-triggers.module';
import { MembersDataModule } from '../members/members-data.module';
import { ReleasesDataModule } from '../releases/releases-data.module';
import { RollupsDataModule } from '../rollups/rollups-data.module';
import { IssueActivityDataModule } from './issue-activity-data.module';
import { IssueActivityService } from './issue-activity.service';
import { IssueCommentsRepository } from './issue-comments.repository';
import { IssueMergeService } from './issue-merge.service';
import { IssueTriageService } from './issue-triage.service';
import { Issue } from './issue.entity';
import { IssuesService } from './issues.service';

/**
 * IssuesService without the HTTP routes, for workers. A worker-only instance has no authentication
 * guard, so a module that brings controllers along would publish them unauthenticated there.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Issue]),
    AlertTriggersModule,
    RollupsDataModule,
    ReleasesDataModule,
    IssueActivityDataModule,
    MembersDataModule,
  ],
  providers: [
    IssuesService,
    IssueTriageService,
    IssueActivityService,
    IssueMergeService,
    IssueCommentsRepository,
  ],
  exports: [
    IssuesService,
    IssueTriageService,
    IssueActivityService,
    IssueMergeService,
    IssueCommentsRepository,
    IssueActivityDataModule,
  ],
})
export class IssuesDataModule {}
