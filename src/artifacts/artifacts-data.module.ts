import { Module } from '@nestjs/common';
import { ArtifactBundlesRepository } from './artifact-bundles.repository';
import { FileChunksRepository } from './file-chunks.repository';

/** The uploaded artifacts' tables without routes: the API stores them, the digest reads them. */
@Module({
  providers: [FileChunksRepository, ArtifactBundlesRepository],
  exports: [FileChunksRepository, ArtifactBundlesRepository],
})
export class ArtifactsDataModule {}
