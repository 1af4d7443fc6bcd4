import { Module } from '@nestjs/common';
import { EventsDataModule } from '../events/events-data.module';
import { MemberServicesModule } from '../members/member-services.module';
import { ReleasesDataModule } from '../releases/releases-data.module';
import { RollupsDataModule } from '../rollups/rollups-data.module';
import { AlertTriggersModule } from './transitions/alert-triggers.module';
import { IssueActivityService } from './issue-activity.service';
import { IssueMergeService } from './issue-merge.service';
import { IssueTriageService } from './issue-triage.service';
import { IssuesDataModule } from './issues-data.module';
import { IssuesService } from './issues.service';

/**
 * The issues' services without the HTTP routes, for workers. A worker-only instance has no
 * authentication guard, so a module that brings controllers along would publish them
 * unauthenticated there.
 */
@Module({
  imports: [
    IssuesDataModule,
    EventsDataModule,
    AlertTriggersModule,
    RollupsDataModule,
    ReleasesDataModule,
    MemberServicesModule,
  ],
  providers: [IssuesService, IssueTriageService, IssueActivityService, IssueMergeService],
  exports: [IssuesService, IssueTriageService, IssueActivityService, IssueMergeService, IssuesDataModule],
})
export class IssueServicesModule {}
