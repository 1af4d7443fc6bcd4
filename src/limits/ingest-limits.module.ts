import { Module } from '@nestjs/common';
import { CheckInLimits, FeedbackLimits } from './category-limits';
import { EventLimits } from './event-limits';
import { LimitsDataModule } from './limits-data.module';
import { IngestRateLimiter } from './rate-limiter';

/** The limits ingest counts a project's items against, in Redis: events, check-ins, feedback. */
@Module({
  imports: [LimitsDataModule],
  providers: [IngestRateLimiter, EventLimits, CheckInLimits, FeedbackLimits],
  exports: [EventLimits, CheckInLimits, FeedbackLimits],
})
export class IngestLimitsModule {}
