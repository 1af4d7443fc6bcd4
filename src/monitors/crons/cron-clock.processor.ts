import { InjectQueue, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  BeforeApplicationShutdown,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { QueueName } from '../../common/queues';
import { RepeatedLog } from '../../common/repeated-log';
import { closeWorkerWithin } from '../../jobs/close-worker';
import { KeptJobScheduler } from '../../jobs/kept-job-scheduler';
import { WorkerErrorLog } from '../../jobs/worker-error-log';
import { CronClockService, TickResult } from './cron-clock.service';

export const CRON_CLOCK_JOB = 'cron-clock';
/** At the start of every minute: expected times are whole minutes. */
const EVERY_MINUTE = '* * * * *';
const CLOSE_GRACE_MS = 5_000;

/**
 * Runs the cron clock once a minute for the whole installation, however many workers there are: a
 * BullMQ job scheduler produces one job per minute and one worker takes it (KeptJobScheduler). A
 * tick that fails (the database away) is logged and not retried: the next minute's tick finds the
 * same deadlines passed, and catches up.
 */
@Processor(QueueName.Monitors, { concurrency: 1 })
export class CronClockProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('CronClock');
  private readonly failures = new RepeatedLog(this.logger, 60_000);
  private readonly workerErrors = new WorkerErrorLog(this.logger, QueueName.Monitors);
  private readonly scheduler: KeptJobScheduler;

  constructor(
    @InjectQueue(QueueName.Monitors) queue: Queue,
    private readonly clock: CronClockService,
  ) {
    super();
    this.scheduler = new KeptJobScheduler(
      queue,
      {
        name: CRON_CLOCK_JOB,
        repeat: { pattern: EVERY_MINUTE },
        opts: { removeOnComplete: true, removeOnFail: true },
      },
      this.logger,
    );
  }

  onApplicationBootstrap(): void {
    this.scheduler.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    try {
      await closeWorkerWithin(this.worker, CLOSE_GRACE_MS);
    } catch (error) {
      this.logger.warn(`closing the cron clock worker: ${(error as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    this.scheduler.stop();
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.workerErrors.report(error);
  }

  async process(job: Job): Promise<TickResult | undefined> {
    if (job.name !== CRON_CLOCK_JOB) {
      this.logger.warn(`unknown monitors job ${job.name}`);
      return undefined;
    }
    try {
      return await this.clock.tickBehindDigest();
    } catch (error) {
      this.failures.warn(
        'tick',
        `cron clock tick failed, caught up next minute: ${(error as Error).message}`,
      );
      return undefined;
    }
  }
}
