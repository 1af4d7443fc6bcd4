import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { EventIdPipe } from '../common/id.pipes';
import { EventsService } from './events.service';
import { FullEventView } from './dto/event.response';
import { ApiErrors } from '../http/api-responses';
import { Access, CurrentAccess, visibleProjectIds } from '../access/access';
import { Requires } from '../access/route-access.decorator';

@ApiTags('events')
@ApiBearerAuth()
@Controller('api')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get('events/:id')
  @Requires('project:read')
  @ApiOkResponse({ type: FullEventView })
  @ApiErrors(400, 404)
  get(@CurrentAccess() access: Access, @Param('id', EventIdPipe) id: string): Promise<FullEventView> {
    return this.events.get(id, undefined, visibleProjectIds(access));
  }
}
