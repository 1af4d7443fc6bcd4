import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../common/public.decorator';
import { QueueMonitor } from '../jobs/queue-monitor';
import type { WorkerBeat } from '../jobs/worker-heartbeat';
import { RedisHealthIndicator } from './redis.health';

type DependencyState = 'connected' | 'disconnected';

export interface ReadinessView {
  status: 'ok';
  database: DependencyState;
  redis: DependencyState;
  /** Digest jobs not yet processed (waiting, active, delayed); the queue fields are omitted when Redis does not answer. */
  digest_backlog?: number;
  /** Digest jobs whose payload could never be stored (see `npm run cli -- jobs:failed`). */
  digest_failed?: number;
  /** Alert jobs that failed for good. */
  alerts_failed?: number;
  /**
   * Worker processes that reported in the last 30 s, and when one last took a digest job: a backlog
   * with no worker, or with a stale `digest_last_job_at`, means events wait. Not a readiness
   * condition: ingest keeps accepting without workers.
   */
  workers?: WorkerBeat[];
  digest_last_job_at?: string | null;
}

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly queues: QueueMonitor,
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
    const queues = await this.queues.snapshot();
    if (queues !== undefined) {
      view.digest_backlog = queues.digestBacklog;
      view.digest_failed = queues.failed.digest;
      view.alerts_failed = queues.failed.alerts;
      view.workers = queues.workers;
      view.digest_last_job_at = queues.digestLastJobAt;
    }
    return view;
  }
}
