import {
  Inject,
  Injectable,
  Logger,
  OnApplicationShutdown,
  OnModuleInit,
  Provider,
  ServiceUnavailableException,
} from '@nestjs/common';
import { Queue } from 'bullmq';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { openQueue } from '../jobs/queue-layout';
import { Batcher } from '../common/batcher';
import { RepeatedLog } from '../common/repeated-log';
import { digestJobs, QueuedEvent } from '../digest/digest-job';
import { IngestMetrics } from './ingest.metrics';

/** Events of concurrent requests are written together (one MULTI) up to this many at a time. */
const MAX_BATCH = 256;
/**
 * Redis that accepts the connection but does not answer must not hold requests for long: the
 * request gets its 503 within 5 s, the rate limiter's call included.
 */
const ENQUEUE_TIMEOUT_MS = 2_500;

export const DIGEST_PRODUCER_QUEUE = Symbol('DIGEST_PRODUCER_QUEUE');

/**
 * The producer's own handle on the digest queue, with its own connection: unlike the workers'
 * (BullModule root config, offline queue on), it must not buffer commands while Redis is
 * unreachable, so that a request gets its 503 at once.
 *
 * Deliberately not `BullModule.registerQueue`: in role `all` the digest worker module registers the
 * same queue name, and @nestjs/bullmq builds a @Processor's Worker from whichever registration of
 * that name it finds first, which could hand the worker this fail-fast connection.
 */
export const digestProducerQueueProvider: Provider = {
  provide: DIGEST_PRODUCER_QUEUE,
  inject: [AppConfig],
  useFactory: (config: AppConfig) => openQueue(config, QueueName.Digest, { offlineQueue: false }),
};

/**
 * Puts accepted events on the digest queue. Events of requests handled in the same event-loop turn
 * are coalesced into one `addBulk` (one Redis round trip instead of one per event), and share jobs
 * (digestJobs: up to MAX_EVENTS_PER_JOB each), so that under load the queue's bookkeeping is paid
 * per few events rather than per event; a lone event keeps a job of its own. Each request still
 * waits for the acknowledgement of the batch holding its events before it is answered.
 */
@Injectable()
export class DigestProducer implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('DigestProducer');
  private readonly batcher = new Batcher<QueuedEvent, void>((events) => this.addBulk(events), {
    maxSize: MAX_BATCH,
    maxWaitMs: 0,
  });
  private ready = false;
  /** Redis going away produces an error per command and per reconnect: one line in 10 s is enough. */
  private readonly redisLog = new RepeatedLog(this.logger, 10_000);

  constructor(
    @Inject(DIGEST_PRODUCER_QUEUE) private readonly queue: Queue,
    private readonly metrics: IngestMetrics,
  ) {}

  onModuleInit(): void {
    // The producer's connection does not queue commands while Redis is away (enableOfflineQueue
    // false), but the very first connection is awaited by BullMQ: until it is up, fail fast here.
    this.queue.on('error', (error: Error) =>
      this.redisLog.warn('connection', `digest queue connection: ${error.message}`),
    );
    this.queue.waitUntilReady().then(
      () => (this.ready = true),
      () => undefined,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.batcher.flushNow();
    await this.queue.close().catch(() => this.queue.disconnect());
  }

  enqueue(event: QueuedEvent): Promise<void> {
    if (!this.ready) return Promise.reject(unavailable());
    return this.batcher.submit(event);
  }

  private async addBulk(events: QueuedEvent[]): Promise<void[]> {
    const jobs = digestJobs(events);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.queue.addBulk(jobs), timeout]);
      this.metrics.digestJobsEnqueued += jobs.length;
      return events.map(() => undefined);
    } catch (error) {
      this.redisLog.warn(
        'enqueue',
        `could not enqueue ${events.length} event(s) for the digest: ${(error as Error).message}`,
      );
      throw unavailable();
    } finally {
      clearTimeout(timer);
    }
  }
}

function unavailable(): ServiceUnavailableException {
  return new ServiceUnavailableException('event queue unavailable, try again later');
}
