import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { EventIdPipe, IdPipe } from '../common/id.pipes';
import { Page } from '../common/pagination';
import { ListEventsQuery } from './dto/list-events.query';
import { IssuesService } from '../issues/issues.service';
import { EventListItem, EventsService, FullEventView } from './events.service';
import { Access, CurrentAccess, visibleProjectIds } from '../access/access';
import { Requires } from '../access/route-access.decorator';

@ApiTags('events')
@ApiBearerAuth()
@Controller('api')
export class EventsController {
  constructor(
    private readonly events: EventsService,
    private readonly issues: IssuesService,
  ) {}

  /** Newest first; `query` narrows them (environment, release, level, user, tags; see README). */
  @Get('issues/:issueId/events')
  @Requires('project:read', { issueId: 'issueId' })
  async list(
    @Param('issueId', new IdPipe('issue_id')) issueId: number,
    @Query() query: ListEventsQuery,
  ): Promise<Page<EventListItem>> {
    await this.issues.get(issueId);
    return this.events.listForIssue(issueId, query);
  }

  /** The issue's newest event, in full. */
  @Get('issues/:issueId/events/latest')
  @Requires('project:read', { issueId: 'issueId' })
  async latest(@Param('issueId', new IdPipe('issue_id')) issueId: number): Promise<FullEventView> {
    await this.issues.get(issueId);
    return this.events.edge(issueId, 'latest');
  }

  /** The issue's oldest event still kept, in full. */
  @Get('issues/:issueId/events/oldest')
  @Requires('project:read', { issueId: 'issueId' })
  async oldest(@Param('issueId', new IdPipe('issue_id')) issueId: number): Promise<FullEventView> {
    await this.issues.get(issueId);
    return this.events.edge(issueId, 'oldest');
  }

  @Get('events/:id')
  @Requires('project:read')
  get(@CurrentAccess() access: Access, @Param('id', EventIdPipe) id: string): Promise<FullEventView> {
    return this.events.get(id, undefined, visibleProjectIds(access));
  }
}
