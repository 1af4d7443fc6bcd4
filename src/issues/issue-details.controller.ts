import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { IdPipe } from '../common/id.pipes';
import { Page, PageQueryDto } from '../common/pagination';
import { ListEventsQuery } from '../events/dto/list-events.query';
import { EventsService } from '../events/events.service';
import { FullEventView } from '../events/dto/event.response';
import { AttachmentsService } from '../attachments/attachments.service';
import { IssueAttachmentsView } from '../attachments/dto/attachment.response';
import { IssueEventListItem } from './dto/issue-event.response';
import { StatsQuery } from '../rollups/dto/stats.query';
import { StatsView, TagKeySummary, TagValueRow } from '../rollups/dto/rollups.response';
import { StatsService } from '../rollups/stats.service';
import { ApiErrors, ListOf, PageOf } from '../http/api-responses';
import { ApiIssueMoved } from './dto/issue.response';
import { TagKeyPipe } from '../rollups/tag-key.pipe';
import { TagsService } from '../rollups/tags.service';
import { IssuesService } from './issues.service';

/**
 * What belongs to one issue but is read from elsewhere: its events, its stats and tags. Each route
 * first finds the issue, so that a missing one is a 404 and a merged one points to where it went.
 */
@ApiBearerAuth()
@Controller('api/issues')
export class IssueDetailsController {
  constructor(
    private readonly issues: IssuesService,
    private readonly events: EventsService,
    private readonly stats: StatsService,
    private readonly tags: TagsService,
    private readonly attachments: AttachmentsService,
  ) {}

  /** Newest first; `query` narrows them (environment, release, level, user, tags; see docs/api.md). */
  @ApiTags('events')
  @Get(':issueId/events')
  @Requires('project:read', { issueId: 'issueId' })
  @ApiOkResponse({ type: PageOf(IssueEventListItem) })
  @ApiErrors(400)
  @ApiIssueMoved()
  async listEvents(
    @Param('issueId', new IdPipe('issue_id')) issueId: number,
    @Query() query: ListEventsQuery,
  ): Promise<Page<IssueEventListItem>> {
    const issue = await this.issues.get(issueId);
    const page = await this.events.listForIssue(issueId, query);
    const files = await this.attachments.countsForEvents(
      issue.project_id,
      page.data.map((event) => event.id),
    );
    return {
      ...page,
      data: page.data.map((event) => ({ ...event, attachment_count: files.get(event.id) ?? 0 })),
    };
  }

  /** How many files its events hold, and the newest event with one (to open it from the issue). */
  @ApiTags('attachments')
  @Get(':id/attachments')
  @Requires('project:read', { issueId: 'id' })
  @ApiOkResponse({ type: IssueAttachmentsView })
  @ApiErrors(400)
  @ApiIssueMoved()
  async issueAttachments(@Param('id', IdPipe) id: number): Promise<IssueAttachmentsView> {
    const issue = await this.issues.get(id);
    return this.attachments.summaryForIssue({
      id: issue.id,
      projectId: issue.project_id,
      firstSeen: new Date(issue.first_seen),
    });
  }

  /** The issue's newest event, in full. */
  @ApiTags('events')
  @Get(':issueId/events/latest')
  @Requires('project:read', { issueId: 'issueId' })
  @ApiOkResponse({ type: FullEventView })
  @ApiErrors(400, [404, 'Not found, or the issue has no events left.'])
  @ApiIssueMoved()
  async latestEvent(@Param('issueId', new IdPipe('issue_id')) issueId: number): Promise<FullEventView> {
    await this.issues.get(issueId);
    return this.events.edge(issueId, 'latest');
  }

  /** The issue's oldest event still kept, in full. */
  @ApiTags('events')
  @Get(':issueId/events/oldest')
  @Requires('project:read', { issueId: 'issueId' })
  @ApiOkResponse({ type: FullEventView })
  @ApiErrors(400, [404, 'Not found, or the issue has no events left.'])
  @ApiIssueMoved()
  async oldestEvent(@Param('issueId', new IdPipe('issue_id')) issueId: number): Promise<FullEventView> {
    await this.issues.get(issueId);
    return this.events.edge(issueId, 'oldest');
  }

  /** Events per hour (`period=24h`) or per UTC day (`14d`, `90d`). */
  @ApiTags('stats')
  @Get(':id/stats')
  @Requires('project:read', { issueId: 'id' })
  @ApiOkResponse({ type: StatsView })
  @ApiErrors(400)
  @ApiIssueMoved()
  async issueStats(@Param('id', IdPipe) id: number, @Query() query: StatsQuery): Promise<StatsView> {
    await this.issues.get(id);
    return this.stats.stats('issue', id, query);
  }

  /** Each tag key of the issue's events: events with it, distinct values, the 10 most frequent. */
  @ApiTags('stats')
  @Get(':id/tags')
  @Requires('project:read', { issueId: 'id' })
  @ApiOkResponse({ type: ListOf(TagKeySummary) })
  @ApiErrors(400)
  @ApiIssueMoved()
  async issueTags(@Param('id', IdPipe) id: number): Promise<{ data: TagKeySummary[] }> {
    await this.issues.get(id);
    return { data: await this.tags.summaries(id) };
  }

  @ApiTags('stats')
  @Get(':id/tags/:key')
  @Requires('project:read', { issueId: 'id' })
  @ApiOkResponse({ type: PageOf(TagValueRow) })
  @ApiErrors(400, [404, 'Not found, or no event of the issue has the tag.'])
  @ApiIssueMoved()
  async issueTagValues(
    @Param('id', IdPipe) id: number,
    @Param('key', TagKeyPipe) key: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<TagValueRow>> {
    await this.issues.get(id);
    return this.tags.values(id, key, query);
  }
}
