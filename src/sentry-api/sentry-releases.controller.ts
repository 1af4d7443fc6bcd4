import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { NewDeployDto, NewReleaseDto, UpdateReleaseDto } from './dto/release.dto';
import { SentryReleasesService } from './sentry-releases.service';
import { SentryDeploy, SentryRelease } from './dto/sentry.response';
import { ApiOrganization } from './dto/organization.param';
import { ApiErrors } from '../http/api-responses';
import { Access, CurrentAccess } from '../access/access';
import { Requires } from '../access/route-access.decorator';

/**
 * sentry-cli's release commands. 3.x calls the organization's routes; 2.x the project's when one
 * project is configured. A release made here is the same release events name (see Triage).
 */
@ApiTags('sentry-cli')
@ApiBearerAuth()
@Controller('api/0')
export class SentryReleasesController {
  constructor(private readonly releases: SentryReleasesService) {}

  @Post('organizations/:org/releases')
  @Requires('project:write')
  @HttpCode(201)
  @ApiOrganization()
  @ApiCreatedResponse({ type: SentryRelease })
  @ApiErrors([400, 'Invalid, or `projects` names no project the token sees.'])
  create(@CurrentAccess() access: Access, @Body() body: NewReleaseDto): Promise<SentryRelease> {
    return this.releases.create(body.version, body.projects, body.dateReleased, access.projects);
  }

  @Post('projects/:org/:project/releases')
  @Requires('project:write', { projectRef: 'project' })
  @HttpCode(201)
  @ApiOrganization()
  @ApiCreatedResponse({ type: SentryRelease })
  @ApiErrors(400)
  createForProject(
    @CurrentAccess() access: Access,
    @Param('project') project: string,
    @Body() body: NewReleaseDto,
  ): Promise<SentryRelease> {
    return this.releases.createForProject(
      project,
      body.version,
      body.projects,
      body.dateReleased,
      access.projects,
    );
  }

  @Get('organizations/:org/releases')
  @Requires('project:read')
  @ApiOrganization()
  @ApiOkResponse({ type: [SentryRelease], description: 'The 100 newest.' })
  list(@CurrentAccess() access: Access): Promise<SentryRelease[]> {
    return this.releases.list(access.projects);
  }

  @Get('projects/:org/:project/releases')
  @Requires('project:read', { projectRef: 'project' })
  @ApiOrganization()
  @ApiOkResponse({ type: [SentryRelease], description: 'The 100 newest.' })
  listForProject(
    @CurrentAccess() access: Access,
    @Param('project') project: string,
  ): Promise<SentryRelease[]> {
    return this.releases.list(access.projects, project);
  }

  @Get('organizations/:org/releases/:version')
  @Requires('project:read')
  @ApiOrganization()
  @ApiOkResponse({ type: SentryRelease })
  @ApiErrors(404)
  get(@CurrentAccess() access: Access, @Param('version') version: string): Promise<SentryRelease> {
    return this.releases.get(version, access.projects);
  }

  @Get('projects/:org/:project/releases/:version')
  @Requires('project:read', { projectRef: 'project' })
  @ApiOrganization()
  @ApiOkResponse({ type: SentryRelease })
  getForProject(
    @CurrentAccess() access: Access,
    @Param('project') project: string,
    @Param('version') version: string,
  ): Promise<SentryRelease> {
    return this.releases.get(version, access.projects, project);
  }

  /** `releases finalize`: marks it released (now, or at `dateReleased`). */
  @Put('organizations/:org/releases/:version')
  @Requires('project:write')
  @ApiOrganization()
  @ApiOkResponse({ type: SentryRelease })
  @ApiErrors(400, 404)
  update(
    @CurrentAccess() access: Access,
    @Param('version') version: string,
    @Body() body: UpdateReleaseDto,
  ): Promise<SentryRelease> {
    return this.releases.finalize(version, body.projects, body.dateReleased, access.projects);
  }

  @Put('projects/:org/:project/releases/:version')
  @Requires('project:write', { projectRef: 'project' })
  @ApiOrganization()
  @ApiOkResponse({ type: SentryRelease })
  @ApiErrors(400)
  updateForProject(
    @CurrentAccess() access: Access,
    @Param('project') project: string,
    @Param('version') version: string,
    @Body() body: UpdateReleaseDto,
  ): Promise<SentryRelease> {
    return this.releases.finalizeForProject(project, version, body.dateReleased, access.projects);
  }

  @Post('organizations/:org/releases/:version/deploys')
  @Requires('project:write')
  @HttpCode(201)
  @ApiOrganization()
  @ApiCreatedResponse({ type: SentryDeploy })
  @ApiErrors(400, 404)
  deploy(
    @CurrentAccess() access: Access,
    @Param('version') version: string,
    @Body() body: NewDeployDto,
  ): Promise<SentryDeploy> {
    return this.releases.deploy(version, body.projects, body, access.projects);
  }
}
