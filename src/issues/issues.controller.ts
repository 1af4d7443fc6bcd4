import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectsService } from '../projects/projects.service';
import { ListIssuesQuery } from './dto/list-issues.query';
import { BulkUpdateIssuesDto, issueChangeOf, UpdateIssueDto } from './dto/update-issue.dto';
import { ActivityQuery, ActivityView, IssueActivityService } from './issue-activity.service';
import { IssueMergeService } from './issue-merge.service';
import { IssueTriageService } from './issue-triage.service';
import { MergeIssuesDto } from './dto/merge-issues.dto';
import { Page } from '../common/pagination';
import { IssuePage, IssuesService, IssueView } from './issues.service';
import { Requires } from '../access/route-access.decorator';

@ApiTags('issues')
@ApiBearerAuth()
@Controller('api')
export class IssuesController {
  constructor(
    private readonly issues: IssuesService,
    private readonly triage: IssueTriageService,
    private readonly activityLog: IssueActivityService,
    private readonly merges: IssueMergeService,
    private readonly projects: ProjectsService,
  ) {}

  /** Searched with `query`, sorted by `sort` (last_seen by default); paginated with `limit` and `cursor` (see README). */
  @Get('projects/:projectId/issues')
  @Requires('project:read', { projectId: 'projectId' })
  async list(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Query() query: ListIssuesQuery,
  ): Promise<IssuePage> {
    const project = await this.projects.findOrFail(projectId);
    return this.issues.listForProject(project, query);
  }

  @Get('issues/:id')
  @Requires('project:read', { issueId: 'id' })
  get(@Param('id', IdPipe) id: number): Promise<IssueView> {
    return this.issues.get(id);
  }

  /** A state, and with `resolved` or `muted` how long it holds (see README, Triage). */
  @Patch('issues/:id')
  @Requires('project:triage', { issueId: 'id' })
  update(@Param('id', IdPipe) id: number, @Body() body: UpdateIssueDto): Promise<IssueView> {
    return this.triage.update(id, issueChangeOf(body));
  }

  /** The same change for many issues of a project, by ids or by a search, in one transaction. */
  @Patch('projects/:projectId/issues')
  @Requires('project:triage', { projectId: 'projectId' })
  async updateMany(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Body() body: BulkUpdateIssuesDto,
  ): Promise<{ updated: number }> {
    const project = await this.projects.findOrFail(projectId);
    return this.triage.updateMany(project, { ids: body.ids, query: body.query }, issueChangeOf(body));
  }

  /** Folds the issues `ids` (of the same project) into this one; see IssueMergeService. */
  @Post('issues/:id/merge')
  @Requires('project:triage', { issueId: 'id' })
  @HttpCode(200)
  merge(@Param('id', IdPipe) id: number, @Body() body: MergeIssuesDto): Promise<IssueView> {
    return this.merges.merge(id, body.ids);
  }

  /** What happened to the issue, oldest first. */
  @Get('issues/:id/activity')
  @Requires('project:read', { issueId: 'id' })
  async activity(
    @Param('id', IdPipe) id: number,
    @Query() query: ActivityQuery,
  ): Promise<Page<ActivityView>> {
    await this.issues.get(id);
    return this.activityLog.page(id, query);
  }

  @Delete('issues/:id')
  @Requires('project:triage', { issueId: 'id' })
  @HttpCode(204)
  async remove(@Param('id', IdPipe) id: number): Promise<void> {
    await this.issues.remove(id);
  }
}
