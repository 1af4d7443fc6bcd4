import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/public.decorator';
import { ReadinessService } from './readiness.service';
import { LivenessView, NotReadyView, ReadinessView } from './dto/readiness.response';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: the process answers. Dependencies are deliberately not checked here. */
  @Get()
  @ApiOkResponse({ type: LivenessView })
  live(): LivenessView {
    return { status: 'ok' };
  }

  /**
   * Readiness: 503 naming the dependency when PostgreSQL or Redis cannot be reached; otherwise 200,
   * `ok`, or `degraded` with the reasons when one refuses work or the digest falls behind (see
   * ReadinessService for why those keep the instance in rotation).
   */
  @Get('ready')
  @ApiOkResponse({ type: ReadinessView })
  @ApiServiceUnavailableResponse({ type: NotReadyView })
  async ready(): Promise<ReadinessView> {
    const { ready, unreachable, view } = await this.readiness.check();
    if (!ready) {
      throw new ServiceUnavailableException({
        error: `not ready: ${unreachable.join(' and ')} unreachable`,
        ...view,
        status: 'error',
      });
    }
    return view;
  }
}
