import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectsService } from '../projects/projects.service';
import { HistoryQueryDto } from './dto/history-query.dto';
import { RulesService } from './rules.service';
import { AlertHistoryView } from './dto/rule.response';
import { ApiErrors } from '../http/api-responses';
import { Requires } from '../access/route-access.decorator';

@ApiTags('alert-history')
@ApiBearerAuth()
@Controller('api/projects/:projectId/alert-history')
export class AlertHistoryController {
  constructor(
    private readonly rules: RulesService,
    private readonly projects: ProjectsService,
  ) {}

  /** Newest first; `limit` defaults to 50, at most 500. A bare array, as the spec shows. */
  @Get()
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: [AlertHistoryView] })
  @ApiErrors(400)
  async list(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Query() query: HistoryQueryDto,
  ): Promise<AlertHistoryView[]> {
    await this.projects.findOrFail(projectId);
    return this.rules.listHistory(projectId, query.limit);
  }
}
