import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DatabaseWriteProbe } from '../database/database-write-probe';
import { QueueMonitor, QueueSnapshot } from '../jobs/queue-monitor';
import { RedisWriteProbe } from './redis-write-probe';
import { RedisHealthIndicator } from './redis.health';
import type { DigestCheck, ReadinessChecks, ReadinessView } from './dto/readiness.response';

export type { DigestCheck, ReadinessChecks, ReadinessView };

type DependencyState = 'connected' | 'disconnected';

export interface Readiness {
  /** False: answer 503, this instance cannot reach PostgreSQL or Redis at all. */
  ready: boolean;
  /** The dependencies that cannot be reached, for the 503's message. */
  unreachable: string[];
  view: ReadinessView;
  queues: QueueSnapshot | undefined;
}

/**
 * What readiness and metrics report, decided in one place.
 *
 * An instance is taken out of rotation (503) only when it cannot reach PostgreSQL or Redis at all,
 * as the specification's readiness does. A dependency that answers but refuses work (PostgreSQL
 * read-only or out of disk, Redis at maxmemory or refusing writes), and a digest that falls behind,
 * make it `degraded` with 200 instead: every instance shares the same PostgreSQL and Redis, so each
 * would say the same, and a load balancer with no instance left answers every SDK with a connection
 * error, which SDKs drop like a 503, while the dashboard and the API's reads would be gone too.
 */
@Injectable()
export class ReadinessService {
  private readonly lagThresholdMs: number;

  constructor(
    private readonly databaseWrites: DatabaseWriteProbe,
    private readonly redisWrites: RedisWriteProbe,
    private readonly redis: RedisHealthIndicator,
    private readonly queues: QueueMonitor,
    config: AppConfig,
  ) {
    this.lagThresholdMs = config.DIGEST_LAG_DEGRADED_SECONDS * 1000;
  }

  async check(): Promise<Readiness> {
    const [databaseWrites, redisWrites, redisReach, queues] = await Promise.all([
      this.databaseWrites.check(),
      this.redisWrites.check(),
      this.redis.pingCheck('redis'),
      this.queues.snapshot(),
    ]);
    const database: DependencyState = databaseWrites.status === 'unreachable' ? 'disconnected' : 'connected';
    const redis: DependencyState = redisReach.redis?.status === 'up' ? 'connected' : 'disconnected';
    const digest = this.digestCheck(queues);
    const degraded: string[] = [];
    if (databaseWrites.status === 'refused')
      degraded.push(`PostgreSQL refuses writes: ${databaseWrites.error}`);
    if (digest.status === 'paused') {
      degraded.push(`the digest is paused: the database refuses work (${digest.paused_reason})`);
    }
    if (digest.status === 'behind' || (digest.status === 'paused' && this.lagging(queues))) {
      degraded.push(
        `the oldest digest job has waited ${digest.oldest_waiting_seconds} s (more than ${digest.threshold_seconds} s)`,
      );
    }
    // A write that timed out says no more than the PING did: only Redis' own refusal degrades.
    if (redis === 'connected' && redisWrites.status === 'refused') {
      degraded.push(`Redis refuses writes: ${redisWrites.error}`);
    }
    const view: ReadinessView = {
      status: degraded.length > 0 ? 'degraded' : 'ok',
      database,
      redis,
      ...(degraded.length > 0 && { degraded }),
      checks: { database_writes: databaseWrites, redis_writes: redisWrites, digest },
    };
    if (queues !== undefined) {
      view.digest_backlog = queues.digestBacklog;
      view.digest_failed = queues.failed.digest;
      view.alerts_failed = queues.failed.alerts;
      view.workers = queues.workers;
      view.digest_last_job_at = queues.digestLastJobAt;
    }
    const unreachable = [
      ...(database === 'disconnected' ? ['database'] : []),
      ...(redis === 'disconnected' ? ['redis'] : []),
    ];
    return { ready: unreachable.length === 0, unreachable, view, queues };
  }

  private lagging(queues: QueueSnapshot | undefined): boolean {
    return queues !== undefined && queues.digestOldestWaitingMs > this.lagThresholdMs;
  }

  private digestCheck(queues: QueueSnapshot | undefined): DigestCheck {
    const threshold_seconds = this.lagThresholdMs / 1000;
    if (queues === undefined) return { status: 'unknown', oldest_waiting_seconds: null, threshold_seconds };
    const oldest_waiting_seconds = Math.floor(queues.digestOldestWaitingMs / 1000);
    const paused = queues.workers.find((worker) => worker.digest_paused);
    if (paused?.digest_paused) {
      return {
        status: 'paused',
        oldest_waiting_seconds,
        threshold_seconds,
        paused_reason: `since ${paused.digest_paused.since}: ${paused.digest_paused.reason}`,
      };
    }
    return {
      status: this.lagging(queues) ? 'behind' : 'ok',
      oldest_waiting_seconds,
      threshold_seconds,
    };
  }
}
