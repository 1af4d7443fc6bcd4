import { Inject, Injectable } from '@nestjs/common';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { REDIS, RedisClient } from '../redis/redis.module';
import { countByClass, FailedJobClass, readFailedReasons } from './failed-reason';
import { queueKey, QueueSettings } from './queue-layout';
import { parseWorkerBeats, WORKERS_KEY, WorkerBeat } from './worker-heartbeat';

/** As long as a command of the shared client may take (REDIS_COMMAND_TIMEOUT_MS). */
const TIMEOUT_MS = 2_000;
/** Reading every failed job's reason is not free: scrapes within this long share one reading. */
const FAILED_CLASSES_REUSE_MS = 15_000;

export interface QueueSnapshot {
  /** Digest jobs not yet processed: waiting, paused, prioritized, active and delayed. */
  digestBacklog: number;
  /** Jobs in the failed sets: payloads that could never be stored, kept for `jobs:retry`. */
  failed: Record<QueueName, number>;
  /** Worker processes that reported in the last 30 s, and when one of them last took a digest job. */
  workers: WorkerBeat[];
  /** When one of them last took a digest job (ISO), null when none has since they started. */
  digestLastJobAt: string | null;
  /** How long the oldest digest job still waiting to be taken has waited (0 when none waits). */
  digestOldestWaitingMs: number;
}

/**
 * What operators need to see about the queues without opening a queue connection: the digest
 * backlog, the failed sets and the live workers. Read from BullMQ's key layout (`wait|paused|active`
 * lists, `prioritized|delayed|failed` sorted sets; see queue-layout.ts) and the workers' heartbeat
 * hash through the shared client, so it works in every role.
 *
 * The digest's counts come from one MULTI, so that a job moving from `wait` to `active` is counted
 * once; the other reads stand alone. A Redis Cluster refuses a MULTI whose keys lie in different
 * slots, and each queue has a slot of its own there. The reads are sent together (one round trip
 * per node) and answer within the same second.
 */
@Injectable()
export class QueueMonitor {
  private readonly settings: QueueSettings;
  private readonly workersKey: string;
  private failedClasses:
    { at: number; counts: Promise<Record<QueueName, Record<FailedJobClass, number>>> } | undefined;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.settings = config;
    this.workersKey = `${config.REDIS_PREFIX}:${WORKERS_KEY}`;
  }

  /** The snapshot, or undefined when Redis does not answer within 2 s. */
  async snapshot(now = Date.now()): Promise<QueueSnapshot | undefined> {
    const key = (queue: QueueName, kind: string) => queueKey(this.settings, queue, kind);
    const digest = this.digestCounts().then(async (values) => {
      const counts = values.slice(0, 6).map(Number);
      const oldest = await this.oldestCreatedAt(values.slice(6).filter((id): id is string => !!id));
      return { counts, oldest };
    });
    const read = Promise.all([
      digest,
      this.redis.zcard(key(QueueName.Alerts, 'failed')),
      this.redis.zcard(key(QueueName.Maintenance, 'failed')),
      this.redis.zcard(key(QueueName.Uptime, 'failed')),
      this.redis.zcard(key(QueueName.Monitors, 'failed')),
      this.redis.hgetall(this.workersKey),
    ]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), TIMEOUT_MS);
    });
    try {
      const results = await Promise.race([read, timeout]);
      if (!results) return undefined;
      const [
        {
          counts: [wait, paused, active, prioritized, delayed, digestFailed],
          oldest,
        },
        alertsFailed,
        maintenanceFailed,
        uptimeFailed,
        monitorsFailed,
        beats,
      ] = results;
      const workers = parseWorkerBeats(beats, now);
      return {
        digestBacklog: wait + paused + active + prioritized + delayed,
        failed: {
          [QueueName.Digest]: digestFailed,
          [QueueName.Alerts]: alertsFailed,
          [QueueName.Maintenance]: maintenanceFailed,
          [QueueName.Uptime]: uptimeFailed,
          [QueueName.Monitors]: monitorsFailed,
        },
        workers,
        // Most recently busy first.
        digestLastJobAt: workers[0]?.last_job_at ?? null,
        digestOldestWaitingMs: oldest === undefined ? 0 : Math.max(0, now - oldest),
      };
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
      // A read that lost the race must not become an unhandled rejection.
      read.catch(() => undefined);
    }
  }

  /** The jobs of each queue's failed set by class (see classOfFailedReason); undefined when Redis does not answer. */
  async failedByClass(
    now = Date.now(),
  ): Promise<Record<QueueName, Record<FailedJobClass, number>> | undefined> {
    if (!this.failedClasses || now - this.failedClasses.at >= FAILED_CLASSES_REUSE_MS) {
      const counts = (async () => {
        const byQueue = {} as Record<QueueName, Record<FailedJobClass, number>>;
        for (const queue of Object.values(QueueName)) {
          const reasons = await readFailedReasons(this.redis, this.settings, queue);
          // The classes read the digest's reasons; other queues fail for their own causes (a mail
          // server away is no database outage): only stalls are told apart there.
          byQueue[queue] =
            queue === QueueName.Digest
              ? countByClass(reasons)
              : countByClass(
                  reasons.map(({ id, reason }) => ({ id, reason: /stalled/.test(reason) ? reason : '' })),
                );
        }
        return byQueue;
      })();
      this.failedClasses = { at: now, counts };
      // A failed reading is not kept: the next scrape tries again.
      counts.catch(() => {
        if (this.failedClasses?.counts === counts) this.failedClasses = undefined;
      });
    }
    try {
      return await this.failedClasses.counts;
    } catch {
      return undefined;
    }
  }

  /**
   * The digest's lists and sets, read in one MULTI so that a job moving from `wait` to `active` is
   * counted once. A Redis at `maxmemory` refuses to queue commands in a MULTI (EXECABORT), reads
   * included: then they are read in a plain pipeline, which is what an operator needs most then.
   */
  private async digestCounts(): Promise<unknown[]> {
    const key = (kind: string) => queueKey(this.settings, QueueName.Digest, kind);
    const read = (batch: ReturnType<RedisClient['pipeline']>) =>
      batch
        .llen(key('wait'))
        .llen(key('paused'))
        .llen(key('active'))
        .zcard(key('prioritized'))
        .zcard(key('delayed'))
        .zcard(key('failed'))
        // Jobs are pushed on the left and taken from the right: the oldest waiting is the last.
        .lindex(key('wait'), -1)
        .lindex(key('paused'), -1)
        .exec()
        .then((results) => {
          if (!results) throw new Error('transaction aborted');
          return results.map(([error, value]) => {
            if (error) throw error;
            return value;
          });
        });
    try {
      return await read(this.redis.multi());
    } catch (error) {
      if (!/^(OOM|EXECABORT)/.test((error as Error).message)) throw error;
      return read(this.redis.pipeline());
    }
  }

  /** When the earliest of these digest jobs was created (BullMQ's `timestamp` field of the job). */
  private async oldestCreatedAt(ids: string[]): Promise<number | undefined> {
    const created = await Promise.all(
      ids.map((id) => this.redis.hget(queueKey(this.settings, QueueName.Digest, id), 'timestamp')),
    );
    const times = created.map(Number).filter((time) => Number.isFinite(time) && time > 0);
    return times.length > 0 ? Math.min(...times) : undefined;
  }
}
