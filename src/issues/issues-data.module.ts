import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AlertTriggersModule } from '../alerts/alert-triggers.module';
import { ReleasesDataModule } from '../releases/releases-data.module';
import { RollupsDataModule } from '../rollups/rollups-data.module';
import { IssueActivityDataModule } from './issue-activity-data.module';
import { IssueActivityService } from './issue-activity.service';
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
  ],
  providers: [IssuesService, IssueTriageService, IssueActivityService, IssueMergeService],
  exports: [IssuesService, IssueTriageService, IssueActivityService, IssueMergeService],
})
export class IssuesDataModule {}
