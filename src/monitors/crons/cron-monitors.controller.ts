import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Requires } from '../../access/route-access.decorator';
import { Actor } from '../../audit/actor.decorator';
import { AuditActor, AuditLog } from '../../audit/audit-log.service';
import { IdPipe } from '../../common/id.pipes';
import { Page } from '../../common/pagination';
import { ApiErrors, ListOf, PageOf } from '../../http/api-responses';
import { ProjectsService } from '../../projects/projects.service';
import { CronMonitorsService } from './cron-monitors.service';
import { CheckInListQueryDto, CreateCronMonitorDto, UpdateCronMonitorDto } from './dto/cron-monitor.dto';
import { CheckInView, MonitorView } from './dto/cron-monitor.response';

@ApiTags('cron monitors')
@ApiBearerAuth()
@Controller('api/projects')
export class CronMonitorsController {
  constructor(
    private readonly monitors: CronMonitorsService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  @Get(':id/monitors')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: ListOf(MonitorView) })
  @ApiErrors(400)
  async list(@Param('id', IdPipe) id: number): Promise<{ data: MonitorView[] }> {
    await this.projects.findOrFail(id);
    return { data: await this.monitors.list(id) };
  }

  /** Monitors are also created, and updated, by check-ins that carry a `monitor_config`. */
  @Post(':id/monitors')
  @Requires('project:write', { projectId: 'id' })
  @ApiCreatedResponse({ type: MonitorView })
  @ApiErrors(400, 409)
  async create(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Body() body: CreateCronMonitorDto,
  ): Promise<MonitorView> {
    await this.projects.findOrFail(id);
    const monitor = await this.monitors.create(id, body);
    await this.audit.record(
      actor,
      'monitor.create',
      { type: 'monitor', id: monitor.id },
      {
        project_id: id,
        slug: monitor.slug,
      },
    );
    return monitor;
  }

  @Get(':id/monitors/:slug')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: MonitorView })
  @ApiErrors(400)
  async get(@Param('id', IdPipe) id: number, @Param('slug') slug: string): Promise<MonitorView> {
    await this.projects.findOrFail(id);
    return this.monitors.get(id, slug);
  }

  @Patch(':id/monitors/:slug')
  @Requires('project:write', { projectId: 'id' })
  @ApiOkResponse({ type: MonitorView })
  @ApiErrors(400)
  async update(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Param('slug') slug: string,
    @Body() body: UpdateCronMonitorDto,
  ): Promise<MonitorView> {
    await this.projects.findOrFail(id);
    const monitor = await this.monitors.update(id, slug, body);
    await this.audit.record(
      actor,
      'monitor.update',
      { type: 'monitor', id: monitor.id },
      {
        project_id: id,
        slug: monitor.slug,
        ...body,
      },
    );
    return monitor;
  }

  @Delete(':id/monitors/:slug')
  @Requires('project:write', { projectId: 'id' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, with its check-ins.' })
  @ApiErrors(400)
  async delete(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Param('slug') slug: string,
  ): Promise<void> {
    await this.projects.findOrFail(id);
    const monitor = await this.monitors.delete(id, slug);
    await this.audit.record(
      actor,
      'monitor.delete',
      { type: 'monitor', id: monitor.id },
      {
        project_id: id,
        slug: monitor.slug,
      },
    );
  }

  @Get(':id/monitors/:slug/check-ins')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: PageOf(CheckInView) })
  @ApiErrors(400)
  async checkIns(
    @Param('id', IdPipe) id: number,
    @Param('slug') slug: string,
    @Query() query: CheckInListQueryDto,
  ): Promise<Page<CheckInView>> {
    await this.projects.findOrFail(id);
    return this.monitors.checkInPage(id, slug, query);
  }
}
