import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { RollupsController } from './rollups.controller';
import { RollupsDataModule } from './rollups-data.module';
import { StatsService } from './stats.service';
import { TagsService } from './tags.service';

/** The stats and tags API (role `api`). */
@Module({
  imports: [RollupsDataModule, ProjectsModule],
  controllers: [RollupsController],
  providers: [StatsService, TagsService],
  exports: [StatsService, TagsService],
})
export class RollupsModule {}
