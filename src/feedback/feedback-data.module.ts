import { Module } from '@nestjs/common';
import { FeedbackRepository } from './feedback.repository';

/** The feedback rows, for the digest (linking, storing), the API and retention. */
@Module({
  providers: [FeedbackRepository],
  exports: [FeedbackRepository],
})
export class FeedbackDataModule {}
