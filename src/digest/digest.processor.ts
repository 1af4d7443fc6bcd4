import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { QueueName } from '../common/queues';
import { classifyDatabaseError } from '../database/database-errors';
import { WorkerErrorLog } from '../jobs/worker-error-log';
import { WorkerHeartbeat } from '../jobs/worker-heartbeat';
import { RepeatedLog } from '../common/repeated-log';
import { RollupFolder } from '../rollups/rollup-folder';
import type { DigestJob } from './digest-job';
import { DigestService } from './digest.service';
import { InvalidEventError } from './event-normaliser';

/** How long a stopping worker spends folding the rollups it recorded, at most. */
const ROLLUPS_AT_EXIT_MS = 5_000;

/** While the database is unreachable the queue is paused for this long, doubling up to the maximum. */
const OUTAGE_PAUSE_MIN_MS = 1_000;
const OUTAGE_PAUSE_MAX_MS = 15_000;

/**
 * A worker killed in the middle of a batch leaves its jobs active; BullMQ's stalled-job check puts
 * them back once their lock has expired. Each such crash counts one "stall" per job, and a job past
 * the limit is failed: the digest is idempotent, so a generous limit costs nothing. A shorter lock
 * than BullMQ's 30 s (renewed every 7.5 s by a timer, whatever the batch is waiting for) and a more
 * frequent check bring a dead worker's jobs back within about 25 s instead of about a minute.
 */
export const DIGEST_WORKER_OPTIONS = {
  maxStalledCount: 50,
  lockDuration: 15_000,
  stalledInterval: 10_000,
  // Far above any real rate: it only makes BullMQ consult the queue's limiter key, which the outage
  // pause sets, so that every worker process of the queue waits, not just the one that failed.
  limiter: { max: 1_000_000, duration: 1_000 },
};

/**
 * Thin BullMQ consumer. What a failure means decides what happens to the job:
 * - the database is unreachable: the job goes back to the waiting list without using up an attempt,
 *   and the whole queue pauses (BullMQ's manual rate limit on the queue's limiter key, which every
 *   worker consults) for a growing while, so an outage of any length only delays events;
 * - the payload can never be stored (invalid event, data PostgreSQL refuses): an UnrecoverableError,
 *   so the job stays in the failed set for inspection and `jobs:retry`, instead of being retried;
 * - anything else (a bug, say): thrown as it is, retried with backoff up to the job's attempts.
 */
@Processor(QueueName.Digest, DIGEST_WORKER_OPTIONS)
export class DigestProcessor extends WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DigestProcessor.name);
  private readonly outageLog = new RepeatedLog(this.logger, 30_000);
  private readonly failedLog = new RepeatedLog(this.logger, 10_000);
  private readonly workerErrors = new WorkerErrorLog(this.logger, QueueName.Digest);
  private outagePauseMs = 0;
  private pausedUntil = 0;

  constructor(
    private readonly digest: DigestService,
    private readonly config: AppConfig,
    private readonly heartbeat: WorkerHeartbeat,
    private readonly rollupFolder: RollupFolder,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.DIGEST_CONCURRENCY;
  }

  /**
   * Stops taking jobs (the batches in hand finish), then folds the counts they recorded, so that a
   * worker that is stopped leaves the rollups complete. Closed here rather than when @nestjs/bullmq
   * closes its workers, which comes later, after every module's before-shutdown hook.
   */
  async beforeApplicationShutdown(): Promise<void> {
    try {
      await this.worker.close();
    } catch (error) {
      // Never started (Redis away at boot) or already closing: the fold below is what matters.
      this.logger.warn(`closing the digest worker: ${(error as Error).message}`);
    }
    await this.rollupFolder.foldBeforeExit(ROLLUPS_AT_EXIT_MS);
  }

  /** Connection trouble and lost locks, as BullMQ reports them: once per interval, not per job. */
  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.workerErrors.report(error);
  }

  /** A job that lands in the failed set for good: operators read it with `jobs:failed`. */
  @OnWorkerEvent('failed')
  onFailed(job: Job<DigestJob> | undefined, error: Error): void {
    if (!job) return;
    const final = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    this.failedLog.error(
      error.message.slice(0, 200),
      `event ${job.data.eventId} of project ${job.data.projectId} moved to the failed set: ${error.message} ` +
        '(npm run cli -- jobs:failed)',
    );
  }

  async process(job: Job<DigestJob>): Promise<void> {
    this.heartbeat.tookJob();
    let item;
    try {
      item = this.digest.prepare(job.data);
    } catch (error) {
      if (error instanceof InvalidEventError) throw new UnrecoverableError(error.message);
      throw error;
    }
    try {
      await this.digest.digest(item);
      this.outagePauseMs = 0;
    } catch (error) {
      switch (classifyDatabaseError(error)) {
        case 'unavailable':
          return this.waitForDatabase(error);
        case 'data':
          throw new UnrecoverableError(`cannot be stored: ${(error as Error).message}`);
        case 'conflict': // still deadlocked after the in-transaction retries: retried with backoff
        case 'unknown':
          throw error;
      }
    }
  }

  /**
   * Every job of a failed batch lands here at once: the pause grows only when the previous one has
   * run out (one doubling per failed try, not per job).
   */
  private async waitForDatabase(error: unknown): Promise<never> {
    const now = Date.now();
    if (now >= this.pausedUntil) {
      this.outagePauseMs = Math.min(
        OUTAGE_PAUSE_MAX_MS,
        Math.max(OUTAGE_PAUSE_MIN_MS, this.outagePauseMs * 2),
      );
      this.pausedUntil = now + this.outagePauseMs;
      this.outageLog.warn(
        'database unavailable',
        `database unavailable (${(error as Error).message}): digest paused, retrying in ${this.outagePauseMs} ms`,
      );
      try {
        await this.worker.rateLimit(this.outagePauseMs);
      } catch {
        // Redis away too: the job still goes back (or its lock expires and the stalled check returns it).
      }
    }
    throw Worker.RateLimitError();
  }
}
