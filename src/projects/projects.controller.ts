import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectNameDto } from './dto/project-name.dto';
import { DEFAULT_GRACE_HOURS, RotateClientKeyDto } from './dto/rotate-client-key.dto';
import { UpdateProjectDto } from './dto/update-project.dto';
import { ProjectsService } from './projects.service';
import { ProjectSummaryView, ProjectView } from './dto/project.response';
import { ApiErrors, ListOf } from '../http/api-responses';
import { Access, CurrentAccess } from '../access/access';
import { Requires } from '../access/route-access.decorator';
import { Actor } from '../audit/actor.decorator';
import { AuditActor, AuditLog } from '../audit/audit-log.service';

@ApiTags('projects')
@ApiBearerAuth()
@Controller('api/projects')
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  @Get()
  @Requires('project:read')
  @ApiOkResponse({
    type: ListOf(ProjectSummaryView),
    description: 'The projects the caller sees, with their counts.',
  })
  async list(@CurrentAccess() access: Access): Promise<{ data: ProjectSummaryView[] }> {
    return { data: await this.projects.listWithActivity(access.projects) };
  }

  @Get(':id')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: ProjectView })
  @ApiErrors(400)
  get(@Param('id', IdPipe) id: number): Promise<ProjectView> {
    return this.projects.get(id);
  }

  @Post()
  @Requires('projects:admin')
  @ApiCreatedResponse({ type: ProjectView })
  @ApiErrors(400, 409)
  async create(@Actor() actor: AuditActor, @Body() body: ProjectNameDto): Promise<ProjectView> {
    const created = await this.projects.create(body.name);
    await this.audit.record(
      actor,
      'project.create',
      { type: 'project', id: created.id },
      {
        name: created.name,
        slug: created.slug,
      },
    );
    return created;
  }

  /** `name` renames (the slug stays); `retention_days` sets how long events are kept (null: the default). */
  @Patch(':id')
  @Requires('project:write', { projectId: 'id' })
  @ApiOkResponse({ type: ProjectView })
  @ApiErrors(400)
  async update(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Body() body: UpdateProjectDto,
  ): Promise<ProjectView> {
    const updated = await this.projects.update(id, { name: body.name, retentionDays: body.retention_days });
    await this.audit.record(actor, 'project.update', { type: 'project', id }, { ...body });
    return updated;
  }

  /** A new client key (and DSN); the replaced key keeps ingesting for `grace_hours` (default 24). */
  @Post(':id/client-key/rotate')
  @Requires('project:write', { projectId: 'id' })
  @HttpCode(200)
  @ApiOkResponse({ type: ProjectView, description: 'The project with its new client key and DSN.' })
  @ApiErrors(400)
  async rotateClientKey(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Body() body: RotateClientKeyDto,
  ): Promise<ProjectView> {
    const graceHours = body.grace_hours ?? DEFAULT_GRACE_HOURS;
    const rotated = await this.projects.rotateClientKey(id, graceHours);
    await this.audit.record(
      actor,
      'project.key_rotate',
      { type: 'project', id },
      { grace_hours: graceHours },
    );
    return rotated;
  }

  @Delete(':id')
  @Requires('projects:admin', { projectId: 'id' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, with its issues and events.' })
  @ApiErrors(400)
  async remove(@Actor() actor: AuditActor, @Param('id', IdPipe) id: number): Promise<void> {
    const project = await this.projects.findOrFail(id);
    await this.projects.remove(id);
    await this.audit.record(
      actor,
      'project.delete',
      { type: 'project', id },
      { name: project.name, slug: project.slug },
    );
  }
}
