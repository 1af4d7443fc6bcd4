import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { EventIdPipe } from '../common/id.pipes';
import { EventsService, FullEventView } from './events.service';
import { Access, CurrentAccess, visibleProjectIds } from '../access/access';
import { Requires } from '../access/route-access.decorator';

@ApiTags('events')
@ApiBearerAuth()
@Controller('api')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get('events/:id')
  @Requires('project:read')
  get(@CurrentAccess() access: Access, @Param('id', EventIdPipe) id: string): Promise<FullEventView> {
    return this.events.get(id, undefined, visibleProjectIds(access));
  }
}
