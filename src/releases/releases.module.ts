import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { ReleasesController } from './releases.controller';
import { ReleasesDataModule } from './releases-data.module';
import { ReleasesService } from './releases.service';
import { ReleaseHealthController } from './health/release-health.controller';
import { ReleaseHealthDataModule } from './health/release-health-data.module';
import { ReleaseHealthService } from './health/release-health.service';

/** The releases API (role `api`), release health included. */
@Module({
  imports: [ReleasesDataModule, ReleaseHealthDataModule, ProjectsModule],
  controllers: [ReleasesController, ReleaseHealthController],
  providers: [ReleasesService, ReleaseHealthService],
  exports: [ReleasesService],
})
export class ReleasesModule {}
