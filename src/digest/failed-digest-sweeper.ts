import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { QueueName } from '../common/queues';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { DatabaseWriteProbe } from '../database/database-write-probe';
import { classOfFailedReason, readFailedReasons } from '../jobs/failed-reason';
import { REDIS, RedisClient } from '../redis/redis.module';
import type { DigestJobData } from './digest-job';

/** A sweep now and then finds what an older version, or a missed outage's end, left behind. */
const SWEEP_EVERY_MS = 5 * 60_000;
const FIRST_SWEEP_AFTER_MS = 10_000;
/** After an outage ends, the jobs it failed come back shortly, once the backlog has started to move. */
const SWEEP_SOON_MS = 2_000;
/** Outages that come and go quickly do not make it read the failed set more often than this. */
const SWEEP_SOON_AT_MOST_EVERY_MS = 60_000;

/**
 * Puts back on the digest queue the failed jobs whose reason reads as the database being
 * unavailable (classOfFailedReason): such a job failed for the server's state, not its data, so it
 * belongs in the backlog. The digest no longer fails jobs so, but an earlier version did (a new
 * connection on a full disk, `XX000 could not write init file`, was read as bad data). It sweeps
 * only when PostgreSQL takes a write, since a job put back during the outage would only wait again:
 * at a worker's start, after each outage the digest sees end, and every 5 minutes. Workers may sweep
 * at once: a job another worker put back first is no longer failed, and is left alone.
 */
@Injectable()
export class FailedDigestSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(FailedDigestSweeper.name);
  private readonly failures = new RepeatedLog(this.logger, 60_000);
  private timers: NodeJS.Timeout[] = [];
  private soon: NodeJS.Timeout | undefined;
  private lastSoonAt = 0;
  private running: Promise<number> | undefined;

  constructor(
    @InjectQueue(QueueName.Digest) private readonly queue: Queue<DigestJobData>,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly database: DatabaseWriteProbe,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const first = setTimeout(() => void this.sweep(), FIRST_SWEEP_AFTER_MS);
    const every = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    first.unref();
    every.unref();
    this.timers = [first, every];
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearTimeout(timer);
    clearTimeout(this.soon);
  }

  /** The database answers again after an outage. */
  sweepSoon(): void {
    if (this.soon || Date.now() - this.lastSoonAt < SWEEP_SOON_AT_MOST_EVERY_MS) return;
    this.lastSoonAt = Date.now();
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.sweep();
    }, SWEEP_SOON_MS);
    this.soon.unref();
  }

  /** How many jobs it put back (0 while the database refuses writes). */
  sweep(): Promise<number> {
    this.running ??= this.putBack()
      .catch((error: unknown) => {
        this.failures.warn('sweep', `could not sweep the digest's failed set: ${(error as Error).message}`);
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async putBack(): Promise<number> {
    if ((await this.database.check()).status !== 'ok') return 0;
    const outageIds = (await readFailedReasons(this.redis, this.config, QueueName.Digest))
      .filter(({ reason }) => classOfFailedReason(reason) === 'unavailable')
      .map(({ id }) => id);
    let returned = 0;
    for (const id of outageIds) {
      const job = await Job.fromId<DigestJobData>(this.queue, id);
      // Put back and failed again meanwhile, perhaps for another reason: read as it is now.
      if (!job || classOfFailedReason(job.failedReason) !== 'unavailable' || !(await job.isFailed()))
        continue;
      try {
        await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        returned++;
      } catch {
        // Put back by another worker in the meantime.
      }
    }
    if (returned > 0) {
      this.logger.log(
        `${returned} digest job(s) that failed while the database was unavailable put back on the queue`,
      );
    }
    return returned;
  }
}
