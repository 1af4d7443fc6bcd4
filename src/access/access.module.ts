import { Module } from '@nestjs/common';
import { IssuesDataModule } from '../issues/issues-data.module';
import { MembersDataModule } from '../members/members-data.module';
import { ProjectsModule } from '../projects/projects.module';
import { RouteAccessService } from './route-access.service';

@Module({
  imports: [MembersDataModule, IssuesDataModule, ProjectsModule],
  providers: [RouteAccessService],
  exports: [RouteAccessService],
})
export class AccessModule {}
