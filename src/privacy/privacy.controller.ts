import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { Actor } from '../audit/actor.decorator';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { IdPipe } from '../common/id.pipes';
import { ApiErrors } from '../http/api-responses';
import { ProjectsService } from '../projects/projects.service';
import { UpdatePrivacySettingsDto } from './dto/privacy-settings.dto';
import { PrivacySettingsView } from './dto/privacy-settings.response';
import { PrivacySettingsService } from './privacy-settings.service';

@ApiTags('data protection')
@ApiBearerAuth()
@Controller('api/projects')
export class PrivacyController {
  constructor(
    private readonly settings: PrivacySettingsService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  /** Scrubbing settings: what is replaced by [Filtered] before events are stored. */
  @Get(':id/data-protection')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: PrivacySettingsView })
  @ApiErrors(400)
  async get(@Param('id', IdPipe) id: number): Promise<PrivacySettingsView> {
    await this.projects.findOrFail(id);
    return this.settings.get(id);
  }

  /** Changes apply to events digested from a few seconds later on; stored events stay as they are. */
  @Patch(':id/data-protection')
  @Requires('project:write', { projectId: 'id' })
  @ApiOkResponse({ type: PrivacySettingsView })
  @ApiErrors(400)
  async update(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Body() body: UpdatePrivacySettingsDto,
  ): Promise<PrivacySettingsView> {
    await this.projects.findOrFail(id);
    const updated = await this.settings.update(id, body);
    await this.audit.record(actor, 'project.data_protection_update', { type: 'project', id }, { ...body });
    return updated;
  }
}
