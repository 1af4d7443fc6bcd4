import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../../access/route-access.decorator';
import { IdPipe } from '../../common/id.pipes';
import { ApiErrors } from '../../http/api-responses';
import { ProjectsService } from '../../projects/projects.service';
import { HealthQuery } from '../dto/release-health.query';
import { ProjectHealthView, ReleaseHealthView } from '../dto/release-health.response';
import { ReleaseHealthService } from './release-health.service';

@ApiTags('releases')
@ApiBearerAuth()
@Controller('api/projects/:projectId')
export class ReleaseHealthController {
  constructor(
    private readonly health: ReleaseHealthService,
    private readonly projects: ProjectsService,
  ) {}

  /** A release's sessions, users and crash-free rates over a period, with every bucket of it. */
  @Get('releases/:version/health')
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: ReleaseHealthView })
  @ApiErrors(400, 404)
  async release(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('version') version: string,
    @Query() query: HealthQuery,
  ): Promise<ReleaseHealthView> {
    await this.projects.findOrFail(projectId);
    const scope = await this.health.scope(projectId, query.period, query.environment);
    return this.health.ofRelease(scope, version);
  }

  /** The project's release health: its totals, and each release with sessions in the period. */
  @Get('release-health')
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: ProjectHealthView })
  @ApiErrors(400)
  async project(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Query() query: HealthQuery,
  ): Promise<ProjectHealthView> {
    await this.projects.findOrFail(projectId);
    return this.health.ofProject(await this.health.scope(projectId, query.period, query.environment));
  }
}
