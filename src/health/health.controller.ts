import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/public.decorator';
import { AppConfig } from '../config/app-config';
import { ReadinessService } from './readiness.service';
import { LivenessView, PublicNotReadyView, PublicReadinessView, ReadinessView } from './dto/readiness.response';
import { publicReadiness } from './public-readiness';

@ApiTags('health')
@Controller('health')
export class HealthController {
  private readonly detailsPublic: boolean;

  constructor(
    private readonly readiness: ReadinessService,
    config: AppConfig,
  ) {
    this.detailsPublic = config.HEALTH_DETAILS === 'public';
  }

  /** Liveness: the process answers. Dependencies are deliberately not checked here. */
  @Get()
  @Public()
  @ApiOkResponse({ type: LivenessView })
  live(): LivenessView {
    return { status: 'ok' };
  }

  /**
   * Readiness: 503 naming the dependency when PostgreSQL or Redis cannot be reached; otherwise 200,
   * `ok`, or `degraded` when one refuses work or the digest falls behind (see ReadinessService for
   * why those keep the instance in rotation). Anyone may ask, so it answers the statuses only
   * unless HEALTH_DETAILS=public; the details are HealthDetailsController's.
   */
  @Get('ready')
  @Public()
  @ApiOkResponse({ type: PublicReadinessView })
  @ApiServiceUnavailableResponse({ type: PublicNotReadyView })
  async ready(): Promise<PublicReadinessView | ReadinessView> {
    const { ready, unreachable, view } = await this.readiness.check();
    const shown = this.detailsPublic ? view : publicReadiness(view);
    if (!ready) throw notReady(unreachable, shown);
    return shown;
  }
}

/** The 503 of readiness, with what the caller may see of it. */
export function notReady(
  unreachable: string[],
  shown: PublicReadinessView | ReadinessView,
): ServiceUnavailableException {
  return new ServiceUnavailableException({
    error: `not ready: ${unreachable.join(' and ')} unreachable`,
    ...shown,
    status: 'error',
  });
}
