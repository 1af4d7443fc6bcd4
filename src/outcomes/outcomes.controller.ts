import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { IdPipe } from '../common/id.pipes';
import { ApiErrors } from '../http/api-responses';
import { ProjectsService } from '../projects/projects.service';
import { OutcomesQuery } from './dto/outcomes.query';
import { OutcomesView } from './dto/outcomes.response';
import { OutcomesService } from './outcomes.service';

@ApiTags('stats')
@ApiBearerAuth()
@Controller('api')
export class OutcomesController {
  constructor(
    private readonly outcomes: OutcomesService,
    private readonly projects: ProjectsService,
  ) {}

  /** What became of what the project's SDKs sent: accepted errors, and what was dropped and why. */
  @Get('projects/:id/outcomes')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: OutcomesView })
  @ApiErrors(400)
  async projectOutcomes(
    @Param('id', IdPipe) id: number,
    @Query() query: OutcomesQuery,
  ): Promise<OutcomesView> {
    await this.projects.findOrFail(id);
    return this.outcomes.ofProject(id, query.period);
  }
}
