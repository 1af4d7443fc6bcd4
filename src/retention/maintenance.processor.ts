import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { QueueName } from '../common/queues';
import { RetentionService } from './retention.service';

export enum MaintenanceJobName {
  Retention = 'retention',
}

const RETENTION_EVERY_MS = 3_600_000;

/**
 * Scheduled housekeeping. BullMQ's job scheduler produces one job per interval for the whole
 * installation (each worker process upserts the same scheduler at boot, which does not duplicate
 * it), and one worker takes each job: retention runs once per hour however many workers there are.
 * Jobs are not retried: the next hour's run carries on where a failed one stopped.
 */
@Processor(QueueName.Maintenance, { concurrency: 1 })
export class MaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(MaintenanceProcessor.name);

  constructor(
    @InjectQueue(QueueName.Maintenance) private readonly queue: Queue,
    private readonly retention: RetentionService,
  ) {
    super();
  }

  /** Not awaited: a worker boots while Redis is down, and the scheduler is registered once it is back. */
  onApplicationBootstrap(): void {
    this.queue
      .upsertJobScheduler(
        MaintenanceJobName.Retention,
        { every: RETENTION_EVERY_MS },
        { name: MaintenanceJobName.Retention, opts: { removeOnComplete: 100, removeOnFail: 100 } },
      )
      .catch((error: unknown) =>
        this.logger.warn(`could not schedule retention: ${(error as Error).message}; it runs once Redis is back`),
      );
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
