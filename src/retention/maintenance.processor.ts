import { InjectQueue, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { KeptJobScheduler } from '../jobs/kept-job-scheduler';
import { WorkerErrorLog } from '../jobs/worker-error-log';
import { RetentionService } from './retention.service';

export enum MaintenanceJobName {
  Retention = 'retention',
}


/**
 * Scheduled housekeeping: retention runs once an hour for the whole installation, however many
 * workers there are (see KeptJobScheduler). Jobs are not retried: the next hour's run carries on
 * where a failed one stopped.
 */
@Processor(QueueName.Maintenance, { concurrency: 1 })
export class MaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MaintenanceProcessor.name);
  private readonly schedule: KeptJobScheduler | undefined;
  private readonly workerErrors = new WorkerErrorLog(this.logger, QueueName.Maintenance);

  /**
   * RETENTION_SCHEDULE is a cron pattern rather than an interval: a worker's start does not run
   * retention at once (partitions are created on demand meanwhile), and the default runs at minute
   * 17, off the full hour when other jobs tend to run.
   */
  constructor(
    @InjectQueue(QueueName.Maintenance) private readonly queue: Queue,
    private readonly retention: RetentionService,
    config: AppConfig,
  ) {
    super();
    if (config.RETENTION_SCHEDULE !== 'off') {
      this.schedule = new KeptJobScheduler(
        queue,
        { name: MaintenanceJobName.Retention, repeat: { pattern: config.RETENTION_SCHEDULE } },
        this.logger,
      );
    }
  }

  onApplicationBootstrap(): void {
    if (this.schedule) {
      this.schedule.start();
      return;
    }
    // Turned off: a schedule an earlier configuration registered must not keep running. Not awaited,
    // like registering: a worker boots while Redis is down.
    this.queue
      .removeJobScheduler(MaintenanceJobName.Retention)
      .catch((error: unknown) =>
        this.logger.warn(`could not remove the retention schedule: ${(error as Error).message}`),
      );
  }

  onApplicationShutdown(): void {
    this.schedule?.stop();
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.workerErrors.report(error);
  }

  async process(job: Job): Promise<unknown> {
    switch (job.name as MaintenanceJobName) {
      case MaintenanceJobName.Retention:
        return this.retention.run();
      default:
        this.logger.warn(`unknown maintenance job ${job.name}`);
        return undefined;
    }
  }
}
