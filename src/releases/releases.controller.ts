import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { Page } from '../common/pagination';
import { HealthQuery, ReleasesQuery } from './dto/release-health.query';
import { ProjectsService } from '../projects/projects.service';
import { ReleasesService } from './releases.service';
import { ReleaseDetailView, ReleaseView } from './dto/release.response';
import { ApiErrors, PageOf } from '../http/api-responses';
import { Requires } from '../access/route-access.decorator';

@ApiTags('releases')
@ApiBearerAuth()
@Controller('api/projects/:projectId/releases')
export class ReleasesController {
  constructor(
    private readonly releases: ReleasesService,
    private readonly projects: ProjectsService,
  ) {}

  /**
   * The project's releases, the most recently seen first, with their events, the issues they opened
   * and their health over `period` (24h by default) in `environment` (all by default).
   */
  @Get()
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: PageOf(ReleaseView) })
  @ApiErrors(400)
  async list(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Query() query: ReleasesQuery,
  ): Promise<Page<ReleaseView>> {
    await this.projects.findOrFail(projectId);
    return this.releases.list(projectId, query);
  }

  /** One release, by its version (URL-encoded: `shop%401.2.0`). */
  @Get(':version')
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: ReleaseDetailView })
  @ApiErrors(400, 404)
  async get(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('version') version: string,
    @Query() query: HealthQuery,
  ): Promise<ReleaseDetailView> {
    await this.projects.findOrFail(projectId);
    return this.releases.get(projectId, version, query);
  }
}
