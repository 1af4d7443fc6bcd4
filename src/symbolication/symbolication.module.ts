import { Module } from '@nestjs/common';
import { ArtifactsDataModule } from '../artifacts/artifacts-data.module';
import { JavaScriptSymbolicator } from './javascript-symbolicator';

/** Source maps applied to JavaScript frames, for the digest (worker role). */
@Module({
  imports: [ArtifactsDataModule],
  providers: [JavaScriptSymbolicator],
  exports: [JavaScriptSymbolicator],
})
export class SymbolicationModule {}
