import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { ArtifactBundlesRepository } from './artifact-bundles.repository';
import { ArtifactBundlesService } from './artifact-bundles.service';
import { ArtifactUploadService } from './artifact-upload.service';
import { ArtifactsController } from './artifacts.controller';
import { FileChunksRepository } from './file-chunks.repository';

/** Source map uploads (role `api`): their storage, and the API that lists and deletes them. */
@Module({
  imports: [ProjectsModule],
  controllers: [ArtifactsController],
  providers: [FileChunksRepository, ArtifactBundlesRepository, ArtifactBundlesService, ArtifactUploadService],
  exports: [ArtifactUploadService, FileChunksRepository],
})
export class ArtifactsModule {}
