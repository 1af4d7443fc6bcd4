import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IssueActivityDataModule } from './issue-activity-data.module';
import { IssueCommentsRepository } from './issue-comments.repository';
import { IssueSearchRepository } from './issue-search.repository';
import { Issue } from './issue.entity';
import { IssuesRepository } from './issues.repository';
import { MonitorIssuesRepository } from './monitor-issues.repository';

/** The issues' rows (and their activity and comments) without services or routes: the digest writes them. */
@Module({
  imports: [TypeOrmModule.forFeature([Issue]), IssueActivityDataModule],
  providers: [IssuesRepository, MonitorIssuesRepository, IssueSearchRepository, IssueCommentsRepository],
  exports: [
    IssuesRepository,
    MonitorIssuesRepository,
    IssueSearchRepository,
    IssueCommentsRepository,
    IssueActivityDataModule,
  ],
})
export class IssuesDataModule {}
