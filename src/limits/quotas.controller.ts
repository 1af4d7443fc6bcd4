import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { Actor } from '../audit/actor.decorator';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { IdPipe } from '../common/id.pipes';
import { ApiErrors } from '../http/api-responses';
import { ProjectsService } from '../projects/projects.service';
import { UpdateQuotasDto } from './dto/quotas.dto';
import { QuotaRefusalView, QuotasView } from './dto/quotas.response';
import { QuotasService } from './quotas.service';

@ApiTags('quotas')
@ApiBearerAuth()
@Controller('api/projects')
export class QuotasController {
  constructor(
    private readonly quotas: QuotasService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  /** Event quotas and spike protection, with today's, this month's and this hour's usage and the spikes. */
  @Get(':id/quotas')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: QuotasView })
  @ApiErrors(400)
  async get(@Param('id', IdPipe) id: number): Promise<QuotasView> {
    await this.projects.findOrFail(id);
    return this.quotas.get(id);
  }

  /** Whether a quota or spike protection refuses the project's events now, since and until when (from Redis). */
  @Get(':id/quotas/refusal')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: QuotaRefusalView })
  @ApiErrors(400)
  async refusal(@Param('id', IdPipe) id: number): Promise<QuotaRefusalView> {
    await this.projects.findOrFail(id);
    return this.quotas.refusal(id);
  }

  /** Applies to ingest at once (on every instance: the limits live in Redis). */
  @Patch(':id/quotas')
  @Requires('project:write', { projectId: 'id' })
  @ApiOkResponse({ type: QuotasView })
  @ApiErrors(400)
  async update(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Body() body: UpdateQuotasDto,
  ): Promise<QuotasView> {
    await this.projects.findOrFail(id);
    const updated = await this.quotas.update(id, body);
    await this.audit.record(actor, 'project.quotas_update', { type: 'project', id }, { ...body });
    return updated;
  }
}
