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
import { AppConfig } from '../../config/app-config';
import { closeWorkerWithin } from '../../jobs/close-worker';
import { KeptJobScheduler } from '../../jobs/kept-job-scheduler';
import { WorkerErrorLog } from '../../jobs/worker-error-log';
import { UptimeCheckRunner } from './uptime-check-runner.service';
import { UptimeCheckJob, UptimeJobName } from './uptime-jobs';
import { UptimeScheduler } from './uptime-scheduler.service';

/** How long a stopping worker lets the checks it holds finish; the rest are given back (stalled). */
const CLOSE_GRACE_MS = 5_000;

/**
 * A worker that dies holding checks leaves them active; BullMQ's stalled-job check gives them to
 * another worker once their lock has expired (at most lockDuration + stalledInterval later). A
 * check run again is recorded once (see UptimeCheckRunner).
 */
export const UPTIME_WORKER_OPTIONS = {
  lockDuration: 30_000,
  stalledInterval: 10_000,
  maxStalledCount: 3,
};

/**
 * The uptime queue's consumer: the tick (once per UPTIME_TICK_MS for the installation, see
 * KeptJobScheduler) and the checks it queues, UPTIME_CHECK_CONCURRENCY at a time per process.
 */
@Processor(QueueName.Uptime, UPTIME_WORKER_OPTIONS)
export class UptimeProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(UptimeProcessor.name);
  private readonly ticks: KeptJobScheduler;
  private readonly tickFailures = new RepeatedLog(this.logger, 60_000);
  private readonly workerErrors = new WorkerErrorLog(this.logger, QueueName.Uptime);

  constructor(
    @InjectQueue(QueueName.Uptime) queue: Queue,
    private readonly scheduler: UptimeScheduler,
    private readonly runner: UptimeCheckRunner,
    private readonly config: AppConfig,
  ) {
    super();
    this.ticks = new KeptJobScheduler(
      queue,
      {
        name: UptimeJobName.Tick,
        repeat: { every: config.UPTIME_TICK_MS },
        opts: { removeOnComplete: true, removeOnFail: true },
      },
      this.logger,
    );
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.UPTIME_CHECK_CONCURRENCY;
    this.ticks.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    try {
      await closeWorkerWithin(this.worker, CLOSE_GRACE_MS);
    } catch (error) {
      this.logger.warn(`closing the uptime worker: ${(error as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    this.ticks.stop();
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.workerErrors.report(error);
  }

  async process(job: Job): Promise<unknown> {
    switch (job.name as UptimeJobName) {
      case UptimeJobName.Tick:
        return this.tick();
      case UptimeJobName.Check: {
        const data = job.data as UptimeCheckJob;
        return this.runner.run(data.monitorId, new Date(data.dueAt));
      }
      default:
        this.logger.warn(`unknown uptime job ${job.name}`);
        return undefined;
    }
  }

  /** A failed tick (the database away) is only logged: the next one claims the same checks. */
  private async tick(): Promise<number> {
    try {
      return await this.scheduler.tick();
    } catch (error) {
      this.tickFailures.warn(
        'tick',
        `queueing due uptime checks failed, retried at the next tick: ${(error as Error).message}`,
      );
      return 0;
    }
  }
}
