import { Module } from '@nestjs/common';
import { ReleaseHealthRepository } from './release-health.repository';
import { SessionFolder } from './session-folder';
import { SessionRecorder } from './session-recorder';
import { UserHasher } from './user-hasher';

/** Release health without routes: ingest records sessions, the maintenance worker folds them. */
@Module({
  providers: [ReleaseHealthRepository, SessionRecorder, SessionFolder, UserHasher],
  exports: [ReleaseHealthRepository, SessionRecorder, SessionFolder, UserHasher],
})
export class ReleaseHealthDataModule {}
