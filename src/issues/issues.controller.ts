import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectsService } from '../projects/projects.service';
import { ListIssuesQuery } from './dto/list-issues.query';
import { UpdateIssueDto } from './dto/update-issue.dto';
import { IssuePage, IssuesService, IssueView } from './issues.service';

@ApiTags('issues')
@ApiBearerAuth()
@Controller('api')
export class IssuesController {
  constructor(
    private readonly issues: IssuesService,
    private readonly projects: ProjectsService,
  ) {}

  /** Searched with `query`, sorted by `sort` (last_seen by default); paginated with `limit` and `cursor` (see README). */
  @Get('projects/:projectId/issues')
  async list(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Query() query: ListIssuesQuery,
  ): Promise<IssuePage> {
    const project = await this.projects.findOrFail(projectId);
    return this.issues.listForProject(project, query);
  }

  @Get('issues/:id')
  get(@Param('id', IdPipe) id: number): Promise<IssueView> {
    return this.issues.get(id);
  }

  @Patch('issues/:id')
  async update(@Param('id', IdPipe) id: number, @Body() body: UpdateIssueDto): Promise<IssueView> {
    return (await this.issues.setState(id, body.state)).issue;
  }

  @Delete('issues/:id')
  @HttpCode(204)
  async remove(@Param('id', IdPipe) id: number): Promise<void> {
    await this.issues.remove(id);
  }
}
