import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { ArtifactBundlesService } from './artifact-bundles.service';
import { ArtifactUploadService } from './artifact-upload.service';
import { ArtifactsController } from './artifacts.controller';
import { ArtifactsDataModule } from './artifacts-data.module';

/** Source map uploads (role `api`): their storage, and the API that lists and deletes them. */
@Module({
  imports: [ArtifactsDataModule, ProjectsModule],
  controllers: [ArtifactsController],
  providers: [ArtifactBundlesService, ArtifactUploadService],
  exports: [ArtifactUploadService],
})
export class ArtifactsModule {}
