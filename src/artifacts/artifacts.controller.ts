import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { Page } from '../common/pagination';
import { ListBundlesQuery } from './list-bundles.query';
import { ProjectsService } from '../projects/projects.service';
import { ArtifactBundlesService } from './artifact-bundles.service';
import { ArtifactBundleView } from './dto/artifact-bundle.response';
import { ApiErrors, PageOf } from '../http/api-responses';
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
  @ApiOkResponse({ type: PageOf(ArtifactBundleView) })
  @ApiErrors(400)
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
  @ApiNoContentResponse({ description: 'Deleted, with its files.' })
  @ApiErrors(400)
  async remove(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('bundleId', new IdPipe('bundle_id')) bundleId: number,
  ): Promise<void> {
    await this.projects.findOrFail(projectId);
    await this.bundles.remove(projectId, bundleId);
  }
}
