import { Module } from '@nestjs/common';
import { ProjectKeyChanges } from './project-key-changes';
import { ProjectsDataModule } from './projects-data.module';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';

@Module({
  imports: [ProjectsDataModule],
  controllers: [ProjectsController],
  providers: [ProjectsService, ProjectKeyChanges],
  exports: [ProjectsService, ProjectKeyChanges, ProjectsDataModule],
})
export class ProjectsModule {}
