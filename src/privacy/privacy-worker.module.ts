import { Module } from '@nestjs/common';
import { PrivacyDataModule } from './privacy-data.module';
import { ProjectScrubbers } from './project-scrubbers.service';

/** What the digest needs: each project's scrubber. No routes. */
@Module({
  imports: [PrivacyDataModule],
  providers: [ProjectScrubbers],
  exports: [ProjectScrubbers],
})
export class PrivacyWorkerModule {}
