import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { NewDeployDto, NewReleaseDto, UpdateReleaseDto } from './dto/release.dto';
import { SentryDeploy, SentryRelease, SentryReleasesService } from './sentry-releases.service';

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
  @HttpCode(201)
  create(@Body() body: NewReleaseDto): Promise<SentryRelease> {
    return this.releases.create(body.version, body.projects, body.dateReleased);
  }

  @Post('projects/:org/:project/releases')
  @HttpCode(201)
  createForProject(@Param('project') project: string, @Body() body: NewReleaseDto): Promise<SentryRelease> {
    return this.releases.createForProject(project, body.version, body.projects, body.dateReleased);
  }

  @Get('organizations/:org/releases')
  list(): Promise<SentryRelease[]> {
    return this.releases.list();
  }

  @Get('projects/:org/:project/releases')
  listForProject(@Param('project') project: string): Promise<SentryRelease[]> {
    return this.releases.list(project);
  }

  @Get('organizations/:org/releases/:version')
  get(@Param('version') version: string): Promise<SentryRelease> {
    return this.releases.get(version);
  }

  @Get('projects/:org/:project/releases/:version')
  getForProject(
    @Param('project') project: string,
    @Param('version') version: string,
  ): Promise<SentryRelease> {
    return this.releases.get(version, project);
  }

  /** `releases finalize`: marks it released (now, or at `dateReleased`). */
  @Put('organizations/:org/releases/:version')
  update(@Param('version') version: string, @Body() body: UpdateReleaseDto): Promise<SentryRelease> {
    return this.releases.finalize(version, body.projects, body.dateReleased);
  }

  @Put('projects/:org/:project/releases/:version')
  updateForProject(
    @Param('project') project: string,
    @Param('version') version: string,
    @Body() body: UpdateReleaseDto,
  ): Promise<SentryRelease> {
    return this.releases.finalizeForProject(project, version, body.dateReleased);
  }

  @Post('organizations/:org/releases/:version/deploys')
  @HttpCode(201)
  deploy(@Param('version') version: string, @Body() body: NewDeployDto): Promise<SentryDeploy> {
    return this.releases.deploy(version, body.projects, body);
  }
}
