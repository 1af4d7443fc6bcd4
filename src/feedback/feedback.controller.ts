import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { IdPipe } from '../common/id.pipes';
import type { Page } from '../common/pagination';
import { ApiErrors, ListOf, PageOf } from '../http/api-responses';
import { ApiIssueMoved } from '../issues/dto/issue.response';
import { IssuesService } from '../issues/issues.service';
import { ProjectsService } from '../projects/projects.service';
import { FeedbackCountsQuery, ListFeedbackQuery, UpdateFeedbackDto } from './dto/feedback.dto';
import { FeedbackCountView, FeedbackView } from './dto/feedback.response';
import { FeedbackService } from './feedback.service';

@ApiTags('feedback')
@ApiBearerAuth()
@Controller('api')
export class FeedbackController {
  constructor(
    private readonly feedback: FeedbackService,
    private readonly projects: ProjectsService,
    private readonly issues: IssuesService,
  ) {}

  /** The project's feedback inbox, newest first. */
  @Get('projects/:id/feedback')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: PageOf(FeedbackView) })
  @ApiErrors(400)
  async list(
    @Param('id', IdPipe) id: number,
    @Query() query: ListFeedbackQuery,
  ): Promise<Page<FeedbackView>> {
    await this.projects.findOrFail(id);
    return this.feedback.ofProject(id, query);
  }

  /** Unresolved feedback per issue, for the issues a list shows (one probe per issue, no scan). */
  @Get('projects/:id/feedback-counts')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: ListOf(FeedbackCountView) })
  @ApiErrors(400)
  async counts(
    @Param('id', IdPipe) id: number,
    @Query() query: FeedbackCountsQuery,
  ): Promise<{ data: FeedbackCountView[] }> {
    await this.projects.findOrFail(id);
    return { data: await this.feedback.unresolvedCounts(id, query.issue_ids) };
  }

  @Get('projects/:id/feedback/:feedbackId')
  @Requires('project:read', { projectId: 'id' })
  @ApiOkResponse({ type: FeedbackView })
  @ApiErrors(400)
  get(
    @Param('id', IdPipe) id: number,
    @Param('feedbackId', new IdPipe('feedback_id')) feedbackId: number,
  ): Promise<FeedbackView> {
    return this.feedback.get(id, feedbackId);
  }

  /** Marks the feedback resolved or unresolved. */
  @Patch('projects/:id/feedback/:feedbackId')
  @Requires('project:triage', { projectId: 'id' })
  @ApiOkResponse({ type: FeedbackView })
  @ApiErrors(400)
  update(
    @Param('id', IdPipe) id: number,
    @Param('feedbackId', new IdPipe('feedback_id')) feedbackId: number,
    @Body() body: UpdateFeedbackDto,
  ): Promise<FeedbackView> {
    return this.feedback.setStatus(id, feedbackId, body.status);
  }

  @Delete('projects/:id/feedback/:feedbackId')
  @HttpCode(204)
  @Requires('project:triage', { projectId: 'id' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400)
  remove(
    @Param('id', IdPipe) id: number,
    @Param('feedbackId', new IdPipe('feedback_id')) feedbackId: number,
  ): Promise<void> {
    return this.feedback.delete(id, feedbackId);
  }

  /** The feedback on an issue's events (and on those of the issues merged into it), newest first. */
  @Get('issues/:id/feedback')
  @Requires('project:read', { issueId: 'id' })
  @ApiOkResponse({ type: PageOf(FeedbackView) })
  @ApiErrors(400)
  @ApiIssueMoved()
  async ofIssue(
    @Param('id', IdPipe) id: number,
    @Query() query: ListFeedbackQuery,
  ): Promise<Page<FeedbackView>> {
    await this.issues.get(id);
    return this.feedback.ofIssue(id, query);
  }
}
