import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { Actor } from '../audit/actor.decorator';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { IdPipe } from '../common/id.pipes';
import { ApiErrors } from '../http/api-responses';
import { ProjectsService } from '../projects/projects.service';
import { UpdateInboundFiltersDto } from './dto/inbound-filters.dto';
import { InboundFiltersView } from './dto/inbound-filters.response';
import { InboundFiltersService } from './inbound-filters.service';

@ApiTags('data protection')
@ApiBearerAuth()
@Controller('api/projects')
export class InboundFiltersController {
  constructor(
    private readonly filters: InboundFiltersService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  /** The project's inbound filters, and how many events each dropped in the last 24 hours and 30 days. */
  @Get(':id/inbound-filters')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: InboundFiltersView })
  @ApiErrors(400)
  async get(@Param('id', IdPipe) id: number): Promise<InboundFiltersView> {
    await this.projects.findOrFail(id);
    return this.filters.get(id);
  }

  /** Changes apply at once on this server, within 10 seconds on the others; stored events stay. */
  @Patch(':id/inbound-filters')
  @Requires('project:write', { projectId: 'id' })
  @ApiOkResponse({ type: InboundFiltersView })
  @ApiErrors(400)
  async update(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Body() body: UpdateInboundFiltersDto,
  ): Promise<InboundFiltersView> {
    await this.projects.findOrFail(id);
    const updated = await this.filters.update(id, body);
    await this.audit.record(actor, 'project.inbound_filters_update', { type: 'project', id }, { ...body });
    return updated;
  }
}
