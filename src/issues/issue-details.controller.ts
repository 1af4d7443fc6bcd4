import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { IdPipe } from '../common/id.pipes';
import { Page, PageQueryDto } from '../common/pagination';
import { ListEventsQuery } from '../events/dto/list-events.query';
import { EventListItem, EventsService, FullEventView } from '../events/events.service';
import { StatsQuery } from '../rollups/dto/stats.query';
import { TagKeySummary, TagValueRow } from '../rollups/rollups.repository';
import { StatsService, StatsView } from '../rollups/stats.service';
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
  ) {}

  /** Newest first; `query` narrows them (environment, release, level, user, tags; see docs/api.md). */
  @ApiTags('events')
  @Get(':issueId/events')
  @Requires('project:read', { issueId: 'issueId' })
  async listEvents(
    @Param('issueId', new IdPipe('issue_id')) issueId: number,
    @Query() query: ListEventsQuery,
  ): Promise<Page<EventListItem>> {
    await this.issues.get(issueId);
    return this.events.listForIssue(issueId, query);
  }

  /** The issue's newest event, in full. */
  @ApiTags('events')
  @Get(':issueId/events/latest')
  @Requires('project:read', { issueId: 'issueId' })
  async latestEvent(@Param('issueId', new IdPipe('issue_id')) issueId: number): Promise<FullEventView> {
    await this.issues.get(issueId);
    return this.events.edge(issueId, 'latest');
  }

  /** The issue's oldest event still kept, in full. */
  @ApiTags('events')
  @Get(':issueId/events/oldest')
  @Requires('project:read', { issueId: 'issueId' })
  async oldestEvent(@Param('issueId', new IdPipe('issue_id')) issueId: number): Promise<FullEventView> {
    await this.issues.get(issueId);
    return this.events.edge(issueId, 'oldest');
  }

  /** Events per hour (`period=24h`) or per UTC day (`14d`, `90d`). */
  @ApiTags('stats')
  @Get(':id/stats')
  @Requires('project:read', { issueId: 'id' })
  async issueStats(@Param('id', IdPipe) id: number, @Query() query: StatsQuery): Promise<StatsView> {
    await this.issues.get(id);
    return this.stats.stats('issue', id, query);
  }

  /** Each tag key of the issue's events: events with it, distinct values, the 10 most frequent. */
  @ApiTags('stats')
  @Get(':id/tags')
  @Requires('project:read', { issueId: 'id' })
  async issueTags(@Param('id', IdPipe) id: number): Promise<{ data: TagKeySummary[] }> {
    await this.issues.get(id);
    return { data: await this.tags.summaries(id) };
  }

  @ApiTags('stats')
  @Get(':id/tags/:key')
  @Requires('project:read', { issueId: 'id' })
  async issueTagValues(
    @Param('id', IdPipe) id: number,
    @Param('key', TagKeyPipe) key: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<TagValueRow>> {
    await this.issues.get(id);
    return this.tags.values(id, key, query);
  }
}
