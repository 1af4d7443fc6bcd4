import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { IdPipe } from '../common/id.pipes';
import { ApiErrors } from '../http/api-responses';
import { ProjectsService } from '../projects/projects.service';
import { TestEventView } from './dto/test-event.response';
import { TestEventSender } from './test-event';

@ApiTags('projects')
@ApiBearerAuth()
@Controller('api/projects/:id/test-event')
export class TestEventController {
  constructor(
    private readonly sender: TestEventSender,
    private readonly projects: ProjectsService,
  ) {}

  /**
   * Sends a test event for the project through the digest, as ingest does with an SDK's events; it
   * shows up as an issue within seconds (poll GET /api/events/{event_id}).
   */
  @Post()
  @HttpCode(202)
  @Requires('project:write', { projectId: 'id' })
  @ApiAcceptedResponse({ type: TestEventView })
  @ApiErrors(400, [503, 'The event queue (Redis) is unreachable; try again later.'])
  async send(@Param('id', IdPipe) id: number): Promise<TestEventView> {
    await this.projects.findOrFail(id);
    return { event_id: await this.sender.send(id) };
  }
}
