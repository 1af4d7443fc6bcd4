import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IssueActivityDataModule } from './issue-activity-data.module';
import { IssueCommentsRepository } from './issue-comments.repository';
import { IssueSearchRepository } from './issue-search.repository';
import { Issue } from './issue.entity';
import { IssueMergesRepository } from './issue-merges.repository';
import { IssueRemovalRepository } from './issue-removal.repository';
import { IssuesRepository } from './issues.repository';

/** The issues' rows (and their activity and comments) without services or routes: the digest writes them. */
@Module({
  imports: [TypeOrmModule.forFeature([Issue]), IssueActivityDataModule],
  providers: [
    IssuesRepository,
    IssueMergesRepository,
    IssueRemovalRepository,
    IssueSearchRepository,
    IssueCommentsRepository,
  ],
  exports: [
    IssuesRepository,
    IssueMergesRepository,
    IssueRemovalRepository,
    IssueSearchRepository,
    IssueCommentsRepository,
    IssueActivityDataModule,
  ],
})
export class IssuesDataModule {}
