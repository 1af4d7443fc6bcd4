import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { QueueName } from '../common/queues';
import { KeptJobScheduler } from '../jobs/kept-job-scheduler';
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
  private readonly schedule: KeptJobScheduler;

  constructor(
    @InjectQueue(QueueName.Maintenance) queue: Queue,
    private readonly retention: RetentionService,
  ) {
    super();
    this.schedule = new KeptJobScheduler(queue, { name: MaintenanceJobName.Retention, everyMs: 3_600_000 }, this.logger);
  }

  onApplicationBootstrap(): void {
    this.schedule.start();
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
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
