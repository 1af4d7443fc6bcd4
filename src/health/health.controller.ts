import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../common/public.decorator';
import { DigestBacklog } from '../ingest/digest-backlog';
import { RedisHealthIndicator } from './redis.health';

type DependencyState = 'connected' | 'disconnected';

export interface ReadinessView {
  status: 'ok';
  database: DependencyState;
  redis: DependencyState;
  /** Digest jobs not yet processed (waiting, active, delayed); omitted when Redis does not answer. */
  digest_backlog?: number;
}

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly digestBacklog: DigestBacklog,
  ) {}

  /** Liveness: the process answers. Dependencies are deliberately not checked here. */
  @Get()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: PostgreSQL and Redis both answer; 503 naming the failing dependency otherwise. */
  @Get('ready')
  async ready(): Promise<ReadinessView> {
    const result = await this.health
      .check([
        () => this.database.pingCheck('database', { timeout: 2_000 }),
        () => this.redis.pingCheck('redis'),
      ])
      .catch((error: { response?: { details?: Record<string, { status: string }> } }) => {
        const details = error.response?.details ?? {};
        const down = Object.keys(details).filter((key) => details[key].status !== 'up');
        const states = {
          database: details.database?.status === 'up' ? 'connected' : 'disconnected',
          redis: details.redis?.status === 'up' ? 'connected' : 'disconnected',
        };
        throw new ServiceUnavailableException({
          error: `not ready: ${down.join(' and ') || 'a dependency'} unreachable`,
          status: 'error',
          ...states,
        });
      });
    const view: ReadinessView = {
      status: 'ok',
      database: result.details.database?.status === 'up' ? 'connected' : 'disconnected',
      redis: result.details.redis?.status === 'up' ? 'connected' : 'disconnected',
    };
    const backlog = await this.digestBacklog.count();
    if (backlog !== undefined) view.digest_backlog = backlog;
    return view;
  }
}
