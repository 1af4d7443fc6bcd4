import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { REDIS } from '../redis/redis.module';
import { parseWorkerBeats, WORKERS_KEY, WorkerBeat } from './worker-heartbeat';

const TIMEOUT_MS = 1_000;

export interface QueueSnapshot {
  /** Digest jobs not yet processed: waiting, paused, prioritized, active and delayed. */
  digestBacklog: number;
  /** Jobs in the failed sets: payloads that could never be stored, kept for `jobs:retry`. */
  failed: Record<QueueName, number>;
  /** Worker processes that reported in the last 30 s, and when one of them last took a digest job. */
  workers: WorkerBeat[];
  /** When one of them last took a digest job (ISO), null when none has since they started. */
  digestLastJobAt: string | null;
}

/**
 * What operators need to see about the queues without opening a queue connection: the digest
 * backlog, the failed sets and the live workers. Read from BullMQ's key layout (`<prefix>:<queue>:
 * wait|paused|active` lists, `prioritized|delayed|failed` sorted sets) and the workers' heartbeat
 * hash, in one pipeline through the shared client, so it works in every role.
 */
@Injectable()
export class QueueMonitor {
  private readonly prefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    config: AppConfig,
  ) {
    this.prefix = config.REDIS_PREFIX;
  }

  /** The snapshot, or undefined when Redis does not answer within a second. */
  async snapshot(now = Date.now()): Promise<QueueSnapshot | undefined> {
    const digest = `${this.prefix}:${QueueName.Digest}`;
    const alerts = `${this.prefix}:${QueueName.Alerts}`;
    const maintenance = `${this.prefix}:${QueueName.Maintenance}`;
    const read = this.redis
      .multi()
      .llen(`${digest}:wait`)
      .llen(`${digest}:paused`)
      .llen(`${digest}:active`)
      .zcard(`${digest}:prioritized`)
      .zcard(`${digest}:delayed`)
      .zcard(`${digest}:failed`)
      .zcard(`${alerts}:failed`)
      .zcard(`${maintenance}:failed`)
      .hgetall(`${this.prefix}:${WORKERS_KEY}`)
      .exec();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), TIMEOUT_MS);
    });
    try {
      const results = await Promise.race([read, timeout]);
      if (!results || results.some(([error]) => error)) return undefined;
      const values = results.map(([, value]) => value);
      const counts = values.slice(0, 8).map(Number);
      const workers = parseWorkerBeats(values[8] as Record<string, string>, now);
      return {
        digestBacklog: counts[0] + counts[1] + counts[2] + counts[3] + counts[4],
        failed: { [QueueName.Digest]: counts[5], [QueueName.Alerts]: counts[6], [QueueName.Maintenance]: counts[7] },
        workers,
        // Most recently busy first.
        digestLastJobAt: workers[0]?.last_job_at ?? null,
      };
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
