import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { Page, PageQueryDto } from '../common/pagination';
import { ProjectsService } from '../projects/projects.service';
import { ReleaseDetailView, ReleasesService, ReleaseView } from './releases.service';
import { Requires } from '../access/route-access.decorator';

@ApiTags('releases')
@ApiBearerAuth()
@Controller('api/projects/:projectId/releases')
export class ReleasesController {
  constructor(
    private readonly releases: ReleasesService,
    private readonly projects: ProjectsService,
  ) {}

  /** The project's releases, the most recently seen first, with their events and the issues they opened. */
  @Get()
  @Requires('project:read', { projectId: 'projectId' })
  async list(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Query() query: PageQueryDto,
  ): Promise<Page<ReleaseView>> {
    await this.projects.findOrFail(projectId);
    return this.releases.list(projectId, query);
  }

  /** One release, by its version (URL-encoded: `shop%401.2.0`). */
  @Get(':version')
  @Requires('project:read', { projectId: 'projectId' })
  async get(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('version') version: string,
  ): Promise<ReleaseDetailView> {
    await this.projects.findOrFail(projectId);
    return this.releases.get(projectId, version);
  }
}
