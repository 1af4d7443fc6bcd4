import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Requires } from '../access/route-access.decorator';
import { ApiErrors } from '../http/api-responses';
import { ReadinessService } from './readiness.service';
import { NotReadyView, ReadinessView } from './dto/readiness.response';
import { notReady } from './health.controller';

/**
 * The whole of readiness, for admins: the reasons (which quote the dependencies' errors), the
 * queues and the worker processes (host names and process ids). Served by api instances only
 * (HealthDetailsModule is an api module): a worker has no sign-in to check a token against.
 */
@ApiTags('health')
@Controller('health')
export class HealthDetailsController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get('ready/details')
  @ApiBearerAuth()
  @Requires('health:read')
  @ApiOkResponse({ type: ReadinessView })
  @ApiServiceUnavailableResponse({ type: NotReadyView })
  @ApiErrors(401, 403)
  async details(): Promise<ReadinessView> {
    const { ready, unreachable, view } = await this.readiness.check();
    if (!ready) throw notReady(unreachable, view);
    return view;
  }
}
