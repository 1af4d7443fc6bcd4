import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { IssuesController } from './issues.controller';
import { IssuesDataModule } from './issues-data.module';

/** The issues API (role `api`). */
@Module({
  imports: [IssuesDataModule, ProjectsModule],
  controllers: [IssuesController],
  exports: [IssuesDataModule],
})
export class IssuesModule {}
