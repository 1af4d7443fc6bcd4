import { Module } from '@nestjs/common';
import { IssueActivityRepository } from './issue-activity.repository';

/** The issues' activity log, written by the digest and the triage API, read by the API. */
@Module({
  providers: [IssueActivityRepository],
  exports: [IssueActivityRepository],
})
export class IssueActivityDataModule {}
