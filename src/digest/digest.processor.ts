import { InjectQueue, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../config/app-config';
import { QueueName } from '../common/queues';
import {
  classifyDatabaseError,
  describeDatabaseError,
  outageMayBeTheData,
} from '../database/database-errors';
import { FailedReasonPrefix } from '../jobs/failed-reason';
import { WorkerErrorLog } from '../jobs/worker-error-log';
import { WorkerHeartbeat } from '../jobs/worker-heartbeat';
import { RepeatedLog } from '../common/repeated-log';
import { RollupFolder } from '../rollups/rollup-folder';
import { FeedbackStoreService } from '../feedback/feedback-store.service';
import type { QueuedFeedback } from '../feedback/feedback-record';
import { ProjectScrubbers } from '../privacy/project-scrubbers.service';
import type { QueuedCheckIn } from '../monitors/crons/check-in-record';
import { CheckInStoreService } from '../monitors/crons/check-in-store.service';
import { OutcomeCounter } from '../outcomes/outcome-counter';
import {
  checkInJob,
  DigestJobData,
  DigestJobName,
  describeDigestJob,
  eventsOfJob,
  MAX_EVENTS_PER_JOB,
  QueuedEvent,
  splitOutJob,
} from './digest-job';
import { DigestService } from './digest.service';
import { FailedDigestSweeper } from './failed-digest-sweeper';
import { InvalidEventError } from './event-normaliser';
import { JobConcurrency } from './job-concurrency';

/** A check-in of a monitor not found waits for it up to 0.25 + 0.5 + … + 8 s, about 16 s. */
const MAX_CHECK_IN_DEFERRALS = 6;
/** What of a feedback holds free text a user may have pasted a secret into. */
const FEEDBACK_SCRUBBED_FIELDS = ['message', 'url'] as const;

/** How long a stopping worker spends folding the rollups it recorded, at most. */
const ROLLUPS_AT_EXIT_MS = 5_000;

/**
 * How many times a job may meet an outage again after other events were stored since its last try,
 * before it is retried on its own (failsAlone): on its third such outage.
 */
const OUTAGE_STRIKES = 2;

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

/** Why one event of a job was not stored. */
interface EventFailure {
  event: QueuedEvent;
  error: unknown;
  kind: 'invalid' | ReturnType<typeof classifyDatabaseError>;
}

/**
 * Thin BullMQ consumer. A job carries one event or several (DigestJobData); they are digested
 * together. What a failure means decides what happens to the job:
 * - the database is unreachable: the job goes back to the waiting list without using up an attempt,
 *   and the whole queue pauses (BullMQ's manual rate limit on the queue's limiter key, which every
 *   worker consults) for a growing while, so an outage of any length only delays events;
 * - the payload can never be stored (invalid event, data PostgreSQL refuses): an UnrecoverableError,
 *   so the job stays in the failed set for inspection and `jobs:retry`, instead of being retried;
 * - anything else (a bug, say): thrown as it is, retried with backoff up to the job's attempts.
 * In a job of several events, an event that fails for one of the last two reasons is split out into
 * a job of its own (splitOutJob), which then meets the same rules alone; the job's other
 * events are stored, and it completes.
 */
@Processor(QueueName.Digest, DIGEST_WORKER_OPTIONS)
export class DigestProcessor extends WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DigestProcessor.name);
  private readonly outageLog = new RepeatedLog(this.logger, 30_000);
  private readonly failedLog = new RepeatedLog(this.logger, 10_000);
  private readonly workerErrors = new WorkerErrorLog(this.logger, QueueName.Digest);
  private outagePauseMs = 0;
  private pausedUntil = 0;
  /** How many jobs this process has stored events of: an outage that lets others be stored is no outage. */
  private jobsStored = 0;
  private readonly outageStrikes = new LRUCache<string, { count: number; storedBefore: number }>({
    max: 10_000,
  });
  private readonly jobsInFlight: JobConcurrency;

  constructor(
    private readonly digest: DigestService,
    private readonly config: AppConfig,
    private readonly heartbeat: WorkerHeartbeat,
    private readonly rollupFolder: RollupFolder,
    private readonly sweeper: FailedDigestSweeper,
    @InjectQueue(QueueName.Digest) private readonly queue: Queue<DigestJobData>,
    private readonly feedback: FeedbackStoreService,
    private readonly checkIns: CheckInStoreService,
    private readonly outcomes: OutcomeCounter,
    private readonly scrubbers: ProjectScrubbers,
  ) {
    super();
    this.jobsInFlight = new JobConcurrency(config.DIGEST_CONCURRENCY, MAX_EVENTS_PER_JOB);
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.jobsInFlight.concurrency;
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
  onFailed(job: Job<DigestJobData> | undefined, error: Error): void {
    if (!job) return;
    const final = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    this.failedLog.error(
      error.message.slice(0, 200),
      `${describeDigestJob(job)} moved to the failed set: ${error.message} (npm run cli -- jobs:failed)`,
    );
  }

  async process(job: Job<DigestJobData>): Promise<void> {
    this.heartbeat.tookJob();
    if (job.name === DigestJobName.Feedback)
      return this.processFeedback(job.data as unknown as QueuedFeedback);
    if (job.name === DigestJobName.CheckIn) return this.processCheckIn(job.data as unknown as QueuedCheckIn);
    const events = eventsOfJob(job.data);
    if (this.jobsInFlight.observe(events.length)) this.worker.concurrency = this.jobsInFlight.concurrency;
    const failures = (await Promise.all(events.map((event) => this.digestEvent(event)))).filter(
      (failure): failure is EventFailure => failure !== undefined,
    );
    const stored = events.length - failures.length;
    if (stored > 0) this.jobsStored++;
    const outage = failures.find((failure) => failure.kind === 'unavailable');
    if (outage) {
      if (this.failsAlone(job, outage.error)) {
        throw Object.assign(new Error(`${FailedReasonPrefix.Alone}${describeDatabaseError(outage.error)}`), {
          cause: outage.error,
        });
      }
      // The whole job goes back: its stored events are found stored when it comes again.
      return this.waitForDatabase(outage.error);
    }
    this.outageStrikes.delete(String(job.id));
    // Only what reached the database says it answers: an invalid event never asked it.
    if (stored > 0 || failures.some((failure) => failure.kind === 'data' || failure.kind === 'conflict')) {
      this.databaseAnswered();
    }
    if (failures.length === 0) return;
    if (events.length > 1) return this.splitOut(job, failures);
    const [{ error, kind }] = failures;
    // The reasons carry the SQLSTATE, so that the failed set can be read again by a later version
    // (FailedDigestSweeper puts back what it then reads as an outage).
    if (kind === 'invalid')
      throw new UnrecoverableError(`${FailedReasonPrefix.Invalid}${(error as Error).message}`);
    if (kind === 'data')
      throw new UnrecoverableError(`${FailedReasonPrefix.Data}${describeDatabaseError(error)}`);
    // A conflict still deadlocked after the in-transaction retries, or a bug: retried with backoff.
    throw Object.assign(new Error(`${FailedReasonPrefix.Other}${describeDatabaseError(error)}`), {
      cause: error,
    });
  }

  /**
   * A feedback job meets failures as an event job of its own does (see the class comment). Its
   * message and page URL are scrubbed by the project's settings as an event's text is; the name and
   * e-mail address are what the user gave to be answered, and stay.
   */
  private processFeedback(feedback: QueuedFeedback): Promise<void> {
    return this.storeAlone(async () => {
      const scrubber = await this.scrubbers.forProject(feedback.projectId);
      scrubber.scrubFields(feedback, FEEDBACK_SCRUBBED_FIELDS);
      return this.feedback.store(feedback);
    });
  }

  /**
   * A check-in Sentry would drop (no monitor, already finished) is counted as an outcome. Jobs are
   * taken side by side, so the check-in that creates a monitor (`in_progress` with monitor_config)
   * may still be on its way while the one that closes the run (without it) is here: a check-in of a
   * monitor not found is put back a few times, waiting longer each time, before it is dropped.
   */
  private processCheckIn(checkIn: QueuedCheckIn): Promise<void> {
    return this.storeAlone(async () => {
      const stored = await this.checkIns.store(checkIn);
      const deferrals = checkIn.deferrals ?? 0;
      if (
        stored.result === 'dropped' &&
        stored.reason === 'invalid_monitor' &&
        deferrals < MAX_CHECK_IN_DEFERRALS
      ) {
        const job = checkInJob({ ...checkIn, deferrals: deferrals + 1 });
        await this.queue.add(job.name, job.data as never, { ...job.opts, delay: 250 * 2 ** deferrals });
        return;
      }
      if (stored.result === 'dropped') {
        this.outcomes.count(checkIn.projectId, [
          { outcome: 'invalid', category: 'monitor', reason: stored.reason, quantity: 1 },
        ]);
      }
    });
  }

  /** Stores a job's one record; failures are met as an event job of its own meets them. */
  private async storeAlone(store: () => Promise<unknown>): Promise<void> {
    try {
      await store();
    } catch (error) {
      const kind = classifyDatabaseError(error, { onEventData: true });
      if (kind === 'unavailable') return this.waitForDatabase(error);
      this.databaseAnswered();
      if (kind === 'data')
        throw new UnrecoverableError(`${FailedReasonPrefix.Data}${describeDatabaseError(error)}`);
      throw Object.assign(new Error(`${FailedReasonPrefix.Other}${describeDatabaseError(error)}`), {
        cause: error,
      });
    }
    this.jobsStored++;
    this.databaseAnswered();
  }

  /**
   * An outage that the job's own data may cause (its statement lost the connection, hung, or ran the
   * server out of memory), met again and again while other jobs are stored in between: the job, not
   * the server, is the trouble. Past OUTAGE_STRIKES such failures it stops pausing the queue for
   * everyone and takes the ordinary retries with backoff, then the failed set (a reason the sweeper
   * never puts back). The count is this process's: a restarted worker starts it again.
   */
  private failsAlone(job: Job<DigestJobData>, error: unknown): boolean {
    if (!outageMayBeTheData(error)) return false;
    const id = String(job.id);
    const previous = this.outageStrikes.get(id);
    const count = (previous?.count ?? 0) + (previous && this.jobsStored > previous.storedBefore ? 1 : 0);
    this.outageStrikes.set(id, { count, storedBefore: this.jobsStored });
    return count >= OUTAGE_STRIKES;
  }

  /** After an outage: the digest goes on, and what an outage put in the failed set comes back. */
  private databaseAnswered(): void {
    if (this.outagePauseMs === 0) return;
    this.outagePauseMs = 0;
    this.heartbeat.databaseAnswered();
    this.sweeper.sweepSoon();
  }

  /** Parses and stores one event; what went wrong, if anything. */
  private async digestEvent(event: QueuedEvent): Promise<EventFailure | undefined> {
    let item;
    try {
      item = await this.digest.prepare(event);
    } catch (error) {
      if (error instanceof InvalidEventError) return { event, error, kind: 'invalid' };
      // Looking source maps up reads the database: an outage there is waited out like the store's.
      return { event, error, kind: classifyDatabaseError(error) };
    }
    try {
      await this.digest.digest(item);
      return undefined;
    } catch (error) {
      return { event, error, kind: classifyDatabaseError(error, { onEventData: true }) };
    }
  }

  /**
   * The events of a shared job that failed go on as jobs of their own, so that one bad event is
   * retried, or lands in the failed set, alone. Should Redis refuse them, the whole job is retried
   * (its stored events are found stored then).
   */
  private async splitOut(job: Job<DigestJobData>, failures: EventFailure[]): Promise<void> {
    await this.queue.addBulk(failures.map((failure) => splitOutJob(failure.event, String(job.id))));
    const reason = failures[0].error instanceof Error ? failures[0].error.message : String(failures[0].error);
    this.failedLog.warn(
      reason.slice(0, 200),
      `${failures.length} of the ${eventsOfJob(job.data).length} events of digest job ${job.id} failed ` +
        `(${reason}); each goes on as a job of its own`,
    );
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
      this.heartbeat.databaseRefused(describeDatabaseError(error));
      this.outageLog.warn(
        'database unavailable',
        `database unavailable (${describeDatabaseError(error)}): digest paused, retrying in ${this.outagePauseMs} ms`,
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
