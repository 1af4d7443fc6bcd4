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
import { IssuePage, IssuesService } from './issues.service';
import { IssueView } from './issue-view';
import { Access, CurrentAccess } from '../access/access';
import { Requires } from '../access/route-access.decorator';
import { AssignmentMail } from './assignment-mail';
import { Assignees, parseAssigneeReference } from '../members/assignees';
import type { ActivityActor } from './issue-activity.repository';

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
    private readonly assignees: Assignees,
    private readonly assignmentMail: AssignmentMail,
  ) {}

  /** Searched with `query`, sorted by `sort` (last_seen by default); paginated with `limit` and `cursor` (see docs/api.md). */
  @Get('projects/:projectId/issues')
  @Requires('project:read', { projectId: 'projectId' })
  async list(
    @CurrentAccess() access: Access,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Query() query: ListIssuesQuery,
  ): Promise<IssuePage> {
    const project = await this.projects.findOrFail(projectId);
    return this.issues.listForProject(project, { ...query, viewerId: access.userId });
  }

  @Get('issues/:id')
  @Requires('project:read', { issueId: 'id' })
  get(@Param('id', IdPipe) id: number): Promise<IssueView> {
    return this.issues.get(id);
  }

  /**
   * A state, and with `resolved` or `muted` how long it holds (see docs/issues.md, Triage); an assignee
   * (who is told by e-mail); or both.
   */
  @Patch('issues/:id')
  @Requires('project:triage', { issueId: 'id' })
  async update(
    @CurrentAccess() access: Access,
    @Param('id', IdPipe) id: number,
    @Body() body: UpdateIssueDto,
  ): Promise<IssueView> {
    const current = await this.issues.get(id);
    const assignee = await this.assigneeOf(body.assignee, current.project_id);
    const by = activityActorOf(access);
    const { issue, newlyAssigned } = await this.triage.update(
      id,
      { change: issueChangeOf(body), assignee },
      by,
    );
    if (assignee && newlyAssigned.length > 0) void this.assignmentMail.send(assignee, [issue], by);
    return issue;
  }

  /** The same change for many issues of a project, by ids or by a search, in one transaction. */
  @Patch('projects/:projectId/issues')
  @Requires('project:triage', { projectId: 'projectId' })
  async updateMany(
    @CurrentAccess() access: Access,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Body() body: BulkUpdateIssuesDto,
  ): Promise<{ updated: number }> {
    const project = await this.projects.findOrFail(projectId);
    const assignee = await this.assigneeOf(body.assignee, project.id);
    const by = activityActorOf(access);
    const { updated, newlyAssigned } = await this.triage.updateMany(
      project,
      { ids: body.ids, query: body.query, viewerId: access.userId },
      { change: issueChangeOf(body), assignee },
      by,
    );
    if (assignee && newlyAssigned.length > 0) {
      void Promise.all(newlyAssigned.slice(0, 21).map((issueId) => this.issues.get(issueId)))
        .then((issues) => this.assignmentMail.send(assignee, issues, by))
        .catch(() => undefined);
    }
    return { updated };
  }

  /** Folds the issues `ids` (of the same project) into this one; see IssueMergeService. */
  @Post('issues/:id/merge')
  @Requires('project:triage', { issueId: 'id' })
  @HttpCode(200)
  merge(
    @CurrentAccess() access: Access,
    @Param('id', IdPipe) id: number,
    @Body() body: MergeIssuesDto,
  ): Promise<IssueView> {
    return this.merges.merge(id, body.ids, activityActorOf(access));
  }

  /** What happened to the issue, oldest first. */
  @Get('issues/:id/activity')
  @Requires('project:read', { issueId: 'id' })
  async activity(
    @Param('id', IdPipe) id: number,
    @Query() query: ActivityQuery,
  ): Promise<Page<ActivityView>> {
    const issue = await this.issues.get(id);
    return this.activityLog.page(id, issue.first_seen, query);
  }

  @Delete('issues/:id')
  @Requires('project:triage', { issueId: 'id' })
  @HttpCode(204)
  async remove(@Param('id', IdPipe) id: number): Promise<void> {
    await this.issues.remove(id);
  }

  /** undefined: leave the assignee; null: unassign; else the member or team, who must see the project. */
  private async assigneeOf(reference: string | null | undefined, projectId: number) {
    if (reference === undefined || reference === null) return reference;
    return this.assignees.forProject(parseAssigneeReference(reference), projectId);
  }
}

function activityActorOf(access: Access): ActivityActor {
  return { userId: access.userId, actor: access.actor };
}
