import { Logger } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import { RepeatedLog } from '../common/repeated-log';

/** How often each worker process makes sure the scheduler still exists. */
const REGISTER_EVERY_MS = 10 * 60_000;

/**
 * Scheduled work that must run once per interval for the whole installation, not once per worker
 * process: a BullMQ job scheduler produces one job per interval in Redis, and one worker takes it.
 * (With `every`, the first job runs at once; with a cron `pattern`, at the next matching time.)
 *
 * Every worker process registers the scheduler (an upsert, which never duplicates it) at boot and
 * again every 10 minutes, without waiting for Redis: a worker boots while Redis is down, and a Redis
 * restarted without persistence has forgotten its schedulers until someone registers them again.
 */
export class KeptJobScheduler {
  private readonly failures: RepeatedLog;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: Queue,
    private readonly job: {
      name: string;
      repeat: { every: number } | { pattern: string };
      opts?: JobsOptions;
    },
    logger: Logger,
  ) {
    this.failures = new RepeatedLog(logger, 60_000);
  }

  start(): void {
    this.register();
    this.timer = setInterval(() => this.register(), REGISTER_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private register(): void {
    this.queue
      .upsertJobScheduler(this.job.name, this.job.repeat, {
        name: this.job.name,
        opts: { removeOnComplete: 100, removeOnFail: 100, ...this.job.opts },
      })
      .catch((error: unknown) =>
        this.failures.warn(
          `scheduler:${this.job.name}`,
          `could not register the "${this.job.name}" schedule: ${(error as Error).message}; retrying`,
        ),
      );
  }
}
