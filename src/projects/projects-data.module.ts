import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Project } from './project.entity';
import { ProjectsRepository } from './projects.repository';

/** The projects table without the routes, for workers (retention reads the projects' own retention). */
@Module({
  imports: [TypeOrmModule.forFeature([Project])],
  providers: [ProjectsRepository],
  exports: [ProjectsRepository],
})
export class ProjectsDataModule {}
