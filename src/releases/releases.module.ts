import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { ReleasesController } from './releases.controller';
import { ReleasesDataModule } from './releases-data.module';
import { ReleasesService } from './releases.service';

/** The releases API (role `api`). */
@Module({
  imports: [ReleasesDataModule, ProjectsModule],
  controllers: [ReleasesController],
  providers: [ReleasesService],
  exports: [ReleasesService],
})
export class ReleasesModule {}
