import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Project } from './project.entity';
import { ProjectActivityRepository } from './project-activity.repository';
import { ProjectsRepository } from './projects.repository';

/** The projects table without the routes, for workers (retention reads the projects' own retention). */
@Module({
  imports: [TypeOrmModule.forFeature([Project])],
  providers: [ProjectsRepository, ProjectActivityRepository],
  exports: [ProjectsRepository, ProjectActivityRepository],
})
export class ProjectsDataModule {}
