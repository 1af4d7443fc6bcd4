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
import { ApiErrors, ListOf } from '../../http/api-responses';
import { ProjectsService } from '../../projects/projects.service';
import { ChecksQuery, CreateUptimeMonitorDto, UpdateUptimeMonitorDto } from './dto/uptime-monitor.dto';
import { FailedCheckView, UptimeCheckView, UptimeMonitorView } from './dto/uptime-monitor.response';
import { UptimeMonitorsService } from './uptime-monitors.service';

/** A project's uptime monitors: settings like the project's other settings (project:write to change). */
@ApiTags('uptime-monitors')
@ApiBearerAuth()
@Controller('api/projects/:projectId/uptime-monitors')
export class UptimeController {
  constructor(
    private readonly monitors: UptimeMonitorsService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  @Get()
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: ListOf(UptimeMonitorView) })
  @ApiErrors(400)
  async list(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
  ): Promise<{ data: UptimeMonitorView[] }> {
    await this.projects.findOrFail(projectId);
    return { data: await this.monitors.list(projectId) };
  }

  @Post()
  @Requires('project:write', { projectId: 'projectId' })
  @ApiCreatedResponse({ type: UptimeMonitorView })
  @ApiErrors(400)
  async create(
    @Actor() actor: AuditActor,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Body() body: CreateUptimeMonitorDto,
  ): Promise<UptimeMonitorView> {
    await this.projects.findOrFail(projectId);
    const created = await this.monitors.create(projectId, body);
    await this.audit.record(
      actor,
      'uptime_monitor.create',
      { type: 'uptime_monitor', id: created.id },
      { project_id: projectId, name: created.name },
    );
    return created;
  }

  @Get(':monitorId')
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: UptimeMonitorView })
  @ApiErrors(400)
  async get(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('monitorId', new IdPipe('monitor_id')) monitorId: number,
  ): Promise<UptimeMonitorView> {
    return this.monitors.get(projectId, monitorId);
  }

  @Patch(':monitorId')
  @Requires('project:write', { projectId: 'projectId' })
  @ApiOkResponse({ type: UptimeMonitorView })
  @ApiErrors(400)
  async update(
    @Actor() actor: AuditActor,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('monitorId', new IdPipe('monitor_id')) monitorId: number,
    @Body() body: UpdateUptimeMonitorDto,
  ): Promise<UptimeMonitorView> {
    const updated = await this.monitors.update(projectId, monitorId, body);
    // The names of what changed, not the values: headers may hold credentials.
    await this.audit.record(
      actor,
      'uptime_monitor.update',
      { type: 'uptime_monitor', id: monitorId },
      { project_id: projectId, changed: Object.keys(body) },
    );
    return updated;
  }

  @Delete(':monitorId')
  @Requires('project:write', { projectId: 'projectId' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, with its checks.' })
  @ApiErrors(400)
  async remove(
    @Actor() actor: AuditActor,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('monitorId', new IdPipe('monitor_id')) monitorId: number,
  ): Promise<void> {
    await this.monitors.remove(projectId, monitorId);
    await this.audit.record(
      actor,
      'uptime_monitor.delete',
      { type: 'uptime_monitor', id: monitorId },
      { project_id: projectId },
    );
  }

  @Get(':monitorId/checks')
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: ListOf(UptimeCheckView) })
  @ApiErrors(400)
  async checks(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('monitorId', new IdPipe('monitor_id')) monitorId: number,
    @Query() query: ChecksQuery,
  ): Promise<{ data: UptimeCheckView[] }> {
    return { data: await this.monitors.series(projectId, monitorId, query.period ?? '24h') };
  }

  @Get(':monitorId/failures')
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({
    type: ListOf(FailedCheckView),
    description: "The period's failed checks, newest first (at most 100).",
  })
  @ApiErrors(400)
  async failures(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('monitorId', new IdPipe('monitor_id')) monitorId: number,
    @Query() query: ChecksQuery,
  ): Promise<{ data: FailedCheckView[] }> {
    return { data: await this.monitors.failures(projectId, monitorId, query.period ?? '24h') };
  }
}
