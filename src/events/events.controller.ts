import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { EventIdPipe, IdPipe } from '../common/id.pipes';
import { Page, PageQueryDto } from '../common/pagination';
import { IssuesService } from '../issues/issues.service';
import { EventListItem, EventsService, FullEventView } from './events.service';

@ApiTags('events')
@ApiBearerAuth()
@Controller('api')
export class EventsController {
  constructor(
    private readonly events: EventsService,
    private readonly issues: IssuesService,
  ) {}

  @Get('issues/:issueId/events')
  async list(
    @Param('issueId', new IdPipe('issue_id')) issueId: number,
    @Query() query: PageQueryDto,
  ): Promise<Page<EventListItem>> {
    await this.issues.get(issueId);
    return this.events.listForIssue(issueId, query);
  }

  @Get('events/:id')
  get(@Param('id', EventIdPipe) id: string): Promise<FullEventView> {
    return this.events.get(id);
  }
}
