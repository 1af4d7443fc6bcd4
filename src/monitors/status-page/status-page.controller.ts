import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../../access/route-access.decorator';
import { Actor } from '../../audit/actor.decorator';
import { AuditActor, AuditLog } from '../../audit/audit-log.service';
import { IdPipe } from '../../common/id.pipes';
import { Public } from '../../common/public.decorator';
import { ApiErrors } from '../../http/api-responses';
import { ProjectsService } from '../../projects/projects.service';
import { UpdateStatusPageDto } from './dto/status-page.dto';
import { PublicStatusPageView, StatusPageSettingsView } from './dto/status-page.response';
import { StatusPageService } from './status-page.service';

/**
 * Status pages: the settings, which only admins change (a page makes monitors public), and the
 * public page, which needs no sign-in.
 */
@ApiTags('status-page')
@Controller('api')
export class StatusPageController {
  constructor(
    private readonly pages: StatusPageService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  @Get('projects/:projectId/status-page')
  @ApiBearerAuth()
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: StatusPageSettingsView })
  @ApiErrors(400)
  async settings(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
  ): Promise<StatusPageSettingsView> {
    await this.projects.findOrFail(projectId);
    return this.pages.settings(projectId);
  }

  @Put('projects/:projectId/status-page')
  @ApiBearerAuth()
  @Requires('projects:admin', { projectId: 'projectId' })
  @ApiOkResponse({ type: StatusPageSettingsView })
  @ApiErrors(400, 409)
  async update(
    @Actor() actor: AuditActor,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Body() body: UpdateStatusPageDto,
  ): Promise<StatusPageSettingsView> {
    await this.projects.findOrFail(projectId);
    const saved = await this.pages.update(projectId, body);
    await this.audit.record(
      actor,
      'status_page.update',
      { type: 'project', id: projectId },
      { enabled: saved.enabled, slug: saved.slug },
    );
    return saved;
  }

  @Get('status/:slug')
  @Public()
  @ApiOkResponse({ type: PublicStatusPageView })
  @ApiErrors(404, [
    429,
    'Too many requests from this address (STATUS_PAGE_REQUESTS_PER_MINUTE); `Retry-After` says when to try again.',
  ])
  publicPage(@Param('slug') slug: string): Promise<PublicStatusPageView> {
    return this.pages.publicPage(slug);
  }
}
