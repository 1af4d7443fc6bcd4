import { InjectQueue, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  BeforeApplicationShutdown,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { closeWorkerWithin } from '../jobs/close-worker';
import { KeptJobScheduler } from '../jobs/kept-job-scheduler';
import { RepeatedLog } from '../common/repeated-log';
import { WorkerErrorLog } from '../jobs/worker-error-log';
import { IssueTriageService } from '../issues/issue-triage.service';
import { OutcomeFolder } from '../outcomes/outcome-folder';
import { SessionFolder } from '../releases/health/session-folder';
import { RetentionService } from './retention.service';

export enum MaintenanceJobName {
  Retention = 'retention',
  EndSnoozes = 'end-snoozes',
  FoldOutcomes = 'fold-outcomes',
  FoldSessions = 'fold-sessions',
}

/** How long a stopping worker waits for the maintenance job it holds. */
const CLOSE_GRACE_MS = 5_000;

/** Snoozes until a time end within this much of it (or of enough users affected). */
const END_SNOOZES_EVERY_MS = 60_000;
/** Outcomes counted at ingest show in the API within this. */
const FOLD_OUTCOMES_EVERY_MS = 60_000;
/** Sessions recorded at ingest show in release health within this. */
const FOLD_SESSIONS_EVERY_MS = 60_000;

/**
 * Scheduled housekeeping, once per interval for the whole installation however many workers there
 * are (see KeptJobScheduler): retention once an hour; every minute the end of the snoozes that no
 * event ends (a time passed, enough users affected), and the folds of the outcomes and the sessions
 * ingest counted.
 * Jobs are not retried: the next run carries on where a failed one stopped.
 */
@Processor(QueueName.Maintenance, { concurrency: 1 })
export class MaintenanceProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(MaintenanceProcessor.name);
  private readonly schedule: KeptJobScheduler | undefined;
  private readonly snoozes: KeptJobScheduler;
  private readonly outcomeFolds: KeptJobScheduler;
  private readonly sessionFolds: KeptJobScheduler;
  private readonly minuteJobFailures = new RepeatedLog(this.logger, 60_000);
  private readonly workerErrors = new WorkerErrorLog(this.logger, QueueName.Maintenance);

  /**
   * RETENTION_SCHEDULE is a cron pattern rather than an interval: a worker's start does not run
   * retention at once (partitions are created on demand meanwhile), and the default runs at minute
   * 17, off the full hour when other jobs tend to run.
   */
  constructor(
    @InjectQueue(QueueName.Maintenance) private readonly queue: Queue,
    private readonly retention: RetentionService,
    private readonly triage: IssueTriageService,
    private readonly outcomes: OutcomeFolder,
    private readonly sessions: SessionFolder,
    config: AppConfig,
  ) {
    super();
    // Frequent jobs keep no history: a day of them would fill the queue's completed set.
    const frequent = (name: MaintenanceJobName, every: number) =>
      new KeptJobScheduler(
        queue,
        { name, repeat: { every }, opts: { removeOnComplete: true, removeOnFail: true } },
        this.logger,
      );
    this.snoozes = frequent(MaintenanceJobName.EndSnoozes, END_SNOOZES_EVERY_MS);
    this.outcomeFolds = frequent(MaintenanceJobName.FoldOutcomes, FOLD_OUTCOMES_EVERY_MS);
    this.sessionFolds = frequent(MaintenanceJobName.FoldSessions, FOLD_SESSIONS_EVERY_MS);
    if (config.RETENTION_SCHEDULE !== 'off') {
      this.schedule = new KeptJobScheduler(
        queue,
        { name: MaintenanceJobName.Retention, repeat: { pattern: config.RETENTION_SCHEDULE } },
        this.logger,
      );
    }
  }

  onApplicationBootstrap(): void {
    this.snoozes.start();
    this.outcomeFolds.start();
    this.sessionFolds.start();
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

  /**
   * A run in progress gets a few seconds, not forever: housekeeping that the next run carries on.
   * Closed before @nestjs/bullmq closes its workers, which would wait for it however long it takes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    try {
      await closeWorkerWithin(this.worker, CLOSE_GRACE_MS);
    } catch (error) {
      this.logger.warn(`closing the maintenance worker: ${(error as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    this.schedule?.stop();
    this.snoozes.stop();
    this.outcomeFolds.stop();
    this.sessionFolds.stop();
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.workerErrors.report(error);
  }

  /**
   * A run that fails (the database away, say) is only logged, at most once a minute: the next
   * minute's run does the same work, and an outage must not fill the failed set with one job a
   * minute.
   */
  private async endSnoozes(): Promise<number> {
    try {
      const ended = await this.triage.endSnoozes();
      if (ended > 0) this.logger.log(`${ended} snoozed issue(s) opened again`);
      return ended;
    } catch (error) {
      this.minuteJobFailures.warn(
        'end-snoozes',
        `ending snoozes failed, retried in a minute: ${(error as Error).message}`,
      );
      return 0;
    }
  }

  /** Like ending snoozes: a failed fold leaves its batch in Redis for the next minute's. */
  private async foldOutcomes(): Promise<unknown> {
    try {
      return await this.outcomes.fold();
    } catch (error) {
      this.minuteJobFailures.warn(
        'fold-outcomes',
        `folding outcomes failed, retried in a minute: ${(error as Error).message}`,
      );
      return undefined;
    }
  }

  /** Like the outcome fold: a failed fold leaves its batch in Redis for the next minute's. */
  private async foldSessions(): Promise<unknown> {
    try {
      return await this.sessions.fold();
    } catch (error) {
      this.minuteJobFailures.warn(
        'fold-sessions',
        `folding sessions failed, retried in a minute: ${(error as Error).message}`,
      );
      return undefined;
    }
  }

  async process(job: Job): Promise<unknown> {
    switch (job.name as MaintenanceJobName) {
      case MaintenanceJobName.Retention:
        return this.retention.run();
      case MaintenanceJobName.EndSnoozes:
        return this.endSnoozes();
      case MaintenanceJobName.FoldOutcomes:
        return this.foldOutcomes();
      case MaintenanceJobName.FoldSessions:
        return this.foldSessions();
      default:
        this.logger.warn(`unknown maintenance job ${job.name}`);
        return undefined;
    }
  }
}
