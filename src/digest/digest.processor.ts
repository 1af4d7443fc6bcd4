import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { QueueName } from '../common/queues';
import type { DigestJob } from './digest-job';
import { isTransientDatabaseError, DigestService } from './digest.service';
import { InvalidEventError } from './event-normaliser';

/**
 * Thin BullMQ consumer. Transient failures (database down) are thrown as they are, so BullMQ retries
 * the job with backoff; a payload that can never be stored becomes an UnrecoverableError and stays in
 * the failed set for inspection instead of being retried forever.
 */
@Processor(QueueName.Digest)
export class DigestProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(DigestProcessor.name);

  constructor(
    private readonly digest: DigestService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.DIGEST_CONCURRENCY;
  }

  async process(job: Job<DigestJob>): Promise<void> {
    let item;
    try {
      item = this.digest.prepare(job.data);
    } catch (error) {
      if (error instanceof InvalidEventError) {
        this.logger.warn(
          `event ${job.data.eventId} of project ${job.data.projectId} rejected: ${error.message}`,
        );
        throw new UnrecoverableError(error.message);
      }
      throw error;
    }
    try {
      await this.digest.digest(item);
    } catch (error) {
      if (isTransientDatabaseError(error)) throw error;
      this.logger.error(
        { err: error },
        `event ${job.data.eventId} of project ${job.data.projectId} cannot be stored: ${(error as Error).message}`,
      );
      throw new UnrecoverableError((error as Error).message);
    }
  }
}
