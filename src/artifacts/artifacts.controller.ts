import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { Page } from '../common/pagination';
import { ListBundlesQuery } from './list-bundles.query';
import { ProjectsService } from '../projects/projects.service';
import { ArtifactBundlesService, ArtifactBundleView } from './artifact-bundles.service';
import { Requires } from '../access/route-access.decorator';

/** What sentry-cli uploaded for a project: its artifact bundles and their files. */
@ApiTags('artifacts')
@ApiBearerAuth()
@Controller('api/projects/:projectId/artifact-bundles')
export class ArtifactsController {
  constructor(
    private readonly bundles: ArtifactBundlesService,
    private readonly projects: ProjectsService,
  ) {}

  /** The newest first, each with its files (URL, type, debug id, size); `release` narrows to one release. */
  @Get()
  @Requires('project:read', { projectId: 'projectId' })
  async list(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Query() query: ListBundlesQuery,
  ): Promise<Page<ArtifactBundleView>> {
    await this.projects.findOrFail(projectId);
    return this.bundles.list(projectId, query);
  }

  @Delete(':bundleId')
  @Requires('project:write', { projectId: 'projectId' })
  @HttpCode(204)
  async remove(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('bundleId', new IdPipe('bundle_id')) bundleId: number,
  ): Promise<void> {
    await this.projects.findOrFail(projectId);
    await this.bundles.remove(projectId, bundleId);
  }
}
