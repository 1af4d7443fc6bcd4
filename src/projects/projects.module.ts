import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProjectKeyChanges } from './project-key-changes';
import { Project } from './project.entity';
import { ProjectsController } from './projects.controller';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

@Module({
  imports: [TypeOrmModule.forFeature([Project])],
  controllers: [ProjectsController],
  providers: [ProjectsService, ProjectsRepository, ProjectKeyChanges],
  exports: [ProjectsService, ProjectKeyChanges],
})
export class ProjectsModule {}
