import { Injectable, Logger } from '@nestjs/common';
import { ArtifactBundlesRepository } from '../artifacts/artifact-bundles.repository';
import { FileChunksRepository } from '../artifacts/file-chunks.repository';
import { AppConfig } from '../config/app-config';
import { EventPartitions, RowDeletion } from '../events/event-partitions';
import { IssueRemovalRepository } from '../issues/issue-removal.repository';
import { ProjectsRepository } from '../projects/projects.repository';
import { AlertHistoryRepository } from '../rules/alert-history.repository';
import { SessionsRepository } from '../users/sessions.repository';
import { RollupsRepository } from '../rollups/rollups.repository';
import { OutcomesRepository } from '../outcomes/outcomes.repository';
import { ReleaseHealthRepository } from '../releases/health/release-health.repository';
import { FeedbackRepository } from '../feedback/feedback.repository';
import { cutoffOf, planPartitions, ProjectRetention } from './retention-policy';
import { AuditLog } from '../audit/audit-log.service';
import { AttachmentsRepository } from '../attachments/attachments.repository';
import { BlobSweeper } from '../storage/blob-sweeper';
import { UptimeChecksRepository } from '../monitors/uptime/uptime-checks.repository';
import { CheckInsRepository } from '../monitors/crons/check-ins.repository';

const DAY_MS = 86_400_000;
/** Partitions made ahead of need, so a worker that is down for a few days still finds them. */
const DAYS_AHEAD = 3;
/** Rows per delete statement: short transactions, no long locks, progress kept if a run is cut short. */
const BATCH = 5_000;
const DROP_LOCK_TIMEOUT_MS = 5_000;

export interface RetentionReport {
  partitionsCreated: number;
  partitionsDropped: string[];
  /** Partitions left for the next run because their lock could not be had in time. */
  partitionsPostponed: string[];
  eventsDeleted: number;
  /** Stack traces and SDK descriptions shared by events now all gone (see EventPartitions). */
  partsDeleted: number;
  /** Of the rollups, the outcomes and release health. */
  hourlyRowsDeleted: number;
  issuesDeleted: number;
  alertHistoryDeleted: number;
  sessionsDeleted: number;
  /** Source map bundles neither uploaded nor used for the project's retention. */
  artifactBundlesDeleted: number;
  /** Upload chunks older than a day (assembled or abandoned). */
  chunksDeleted: number;
  /** Audit log entries older than AUDIT_RETENTION_DAYS. */
  auditEntriesDeleted: number;
  /** User feedback received before its project's retention, like the events. */
  feedbackDeleted: number;
  /** Files attached to events gone (their blobs are deleted by the sweep: blobsDeleted). */
  attachmentsDeleted: number;
  /** Files whose event was never stored, past the grace period (ORPHAN_ATTACHMENT_GRACE_MS). */
  orphanAttachmentsDeleted: number;
  /** Blobs of deleted attachments and source map files, and blobs a failed or interrupted upload left. */
  blobsDeleted: number;
  /** Uptime checks older than UPTIME_CHECK_RETENTION_HOURS, and hourly totals of uptime older than 95 days. */
  uptimeRowsDeleted: number;
  /** Cron check-ins older than CRON_CHECK_INS_KEPT_DAYS. */
  cronCheckInsDeleted: number;
}

/** Chunks are kept this long after their upload, so that a repeated upload finds them. */
const CHUNK_LIFETIME_MS = DAY_MS;
/**
 * Attachments are recorded at ingest, before their event is digested; files whose event is still
 * not stored this long after they arrived never will be (the digest refused or filtered it, or
 * none was sent): they are deleted. A day leaves the digest room for an outage of hours.
 */
export const ORPHAN_ATTACHMENT_GRACE_MS = DAY_MS;
/**
 * How far back past the grace period each run looks for such files: each is checked on about 48
 * hourly runs, and the run does not re-read every file ever kept. Older ones go with retention.
 */
const ORPHAN_ATTACHMENT_WINDOW_MS = 2 * DAY_MS;
const BUNDLES_PER_STATEMENT = 50;
/** Cron check-ins are kept as long as the status page's history, and a few days more. */
const CRON_CHECK_INS_KEPT_DAYS = 95;
/** Hourly uptime totals outlive the status page's 90 days by a few, for time zones and late pages. */
const UPTIME_HOURS_KEPT_DAYS = 95;

/**
 * One retention run (see docs/operations.md, "Retention"): partitions ahead, expired partitions dropped, rows of
 * shorter-lived projects deleted in batches, then the rollups, issues, alert history and sessions
 * that outlived their events. Every step is idempotent and commits on its own, so a run cut short
 * leaves nothing half done, and the next run carries on.
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    private readonly config: AppConfig,
    private readonly partitions: EventPartitions,
    private readonly rollups: RollupsRepository,
    private readonly issues: IssueRemovalRepository,
    private readonly alertHistory: AlertHistoryRepository,
    private readonly sessions: SessionsRepository,
    private readonly artifacts: ArtifactBundlesRepository,
    private readonly chunks: FileChunksRepository,
    private readonly auditLog: AuditLog,
    private readonly projects: ProjectsRepository,
    private readonly outcomes: OutcomesRepository,
    private readonly releaseHealth: ReleaseHealthRepository,
    private readonly feedback: FeedbackRepository,
    private readonly attachments: AttachmentsRepository,
    private readonly blobSweeper: BlobSweeper,
    private readonly uptimeChecks: UptimeChecksRepository,
    private readonly cronCheckIns: CheckInsRepository,
  ) {}

  async run(now = new Date()): Promise<RetentionReport> {
    const defaultDays = this.config.EVENT_RETENTION_DAYS;
    const report: RetentionReport = {
      partitionsCreated: await this.partitions.ensureDays(
        new Date(now.getTime() - DAY_MS),
        new Date(now.getTime() + DAYS_AHEAD * DAY_MS),
      ),
      partitionsDropped: [],
      partitionsPostponed: [],
      eventsDeleted: 0,
      partsDeleted: 0,
      hourlyRowsDeleted: 0,
      issuesDeleted: 0,
      alertHistoryDeleted: 0,
      sessionsDeleted: 0,
      artifactBundlesDeleted: 0,
      chunksDeleted: 0,
      auditEntriesDeleted: 0,
      feedbackDeleted: 0,
      attachmentsDeleted: 0,
      orphanAttachmentsDeleted: 0,
      blobsDeleted: 0,
      uptimeRowsDeleted: 0,
      cronCheckInsDeleted: 0,
    };
    const overrides = await this.projectOverrides(defaultDays);

    for (const action of planPartitions(await this.partitions.list(), now, defaultDays, overrides)) {
      if (action.kind === 'drop') {
        const dropped = await this.partitions.drop(action.partition, DROP_LOCK_TIMEOUT_MS);
        (dropped ? report.partitionsDropped : report.partitionsPostponed).push(action.partition.name);
      } else if (action.kind === 'delete') {
        for (const deletion of action.deletions) {
          report.eventsDeleted += await drain((limit) =>
            this.partitions.deleteBatch(action.partition, deletion, limit),
          );
        }
      }
    }

    for (const deletion of cutoffs(now, defaultDays, overrides)) {
      report.partsDeleted += await drain((limit) => this.partitions.deleteExpiredParts(deletion, limit));
      report.hourlyRowsDeleted += await drain((limit) => this.rollups.deleteHours(deletion, limit));
      report.hourlyRowsDeleted += await drain((limit) => this.outcomes.deleteHours(deletion, limit));
      report.hourlyRowsDeleted += await drain((limit) => this.releaseHealth.deleteHours(deletion, limit));
      // With the day of events they belong to: a partition goes once its whole day has expired.
      const day = { ...deletion, before: startOfUtcDay(deletion.before) };
      report.attachmentsDeleted += await drain((limit) => this.attachments.deleteExpired(day, limit));
      report.issuesDeleted += await drain((limit) => this.issues.deleteExpired(deletion, limit));
      report.feedbackDeleted += await drain((limit) => this.feedback.deleteReceivedBefore(deletion, limit));
      // Few bundles a statement: each takes its files (megabytes of TOAST) with it.
      report.artifactBundlesDeleted += await drain(
        (limit) => this.artifacts.deleteUnused(deletion, limit),
        BUNDLES_PER_STATEMENT,
      );
    }
    report.chunksDeleted = await drain((limit) =>
      this.chunks.expireOlderThan(new Date(now.getTime() - CHUNK_LIFETIME_MS), limit),
    );
    report.alertHistoryDeleted = await drain((limit) =>
      this.alertHistory.deleteOlderThan(cutoffOf(now, defaultDays), limit),
    );
    report.sessionsDeleted = await drain((limit) => this.sessions.deleteExpiredBatch(now, limit));
    report.auditEntriesDeleted = await drain((limit) =>
      this.auditLog.deleteOlderThan(cutoffOf(now, this.config.AUDIT_RETENTION_DAYS), limit),
    );
    const hour = 3_600_000;
    report.uptimeRowsDeleted += await drain((limit) =>
      this.uptimeChecks.deleteChecksBefore(
        new Date(now.getTime() - this.config.UPTIME_CHECK_RETENTION_HOURS * hour),
        limit,
      ),
    );
    report.uptimeRowsDeleted += await drain((limit) =>
      this.uptimeChecks.deleteHoursBefore(new Date(now.getTime() - UPTIME_HOURS_KEPT_DAYS * DAY_MS), limit),
    );

    report.cronCheckInsDeleted = await drain((limit) =>
      this.cronCheckIns.deleteCreatedBefore(
        new Date(now.getTime() - CRON_CHECK_INS_KEPT_DAYS * DAY_MS),
        limit,
      ),
    );

    report.orphanAttachmentsDeleted = await drain((limit) =>
      this.attachments.deleteOrphans(
        new Date(now.getTime() - ORPHAN_ATTACHMENT_GRACE_MS - ORPHAN_ATTACHMENT_WINDOW_MS),
        new Date(now.getTime() - ORPHAN_ATTACHMENT_GRACE_MS),
        limit,
      ),
    );
    report.blobsDeleted = await this.blobSweeper.sweep();

    this.log(report);
    return report;
  }

  /** Projects whose own retention differs from the default. */
  private projectOverrides(defaultDays: number): Promise<ProjectRetention[]> {
    return this.projects.retentionOverrides(defaultDays);
  }

  private log(report: RetentionReport): void {
    const changed =
      report.partitionsCreated +
      report.partitionsDropped.length +
      report.partitionsPostponed.length +
      report.eventsDeleted +
      report.partsDeleted +
      report.hourlyRowsDeleted +
      report.issuesDeleted +
      report.alertHistoryDeleted +
      report.sessionsDeleted +
      report.artifactBundlesDeleted +
      report.chunksDeleted +
      report.auditEntriesDeleted +
      report.feedbackDeleted +
      report.attachmentsDeleted +
      report.orphanAttachmentsDeleted +
      report.blobsDeleted +
      report.uptimeRowsDeleted +
      report.cronCheckInsDeleted;
    if (changed === 0) return;
    this.logger.log(
      `retention: ${report.partitionsCreated} partition(s) created, dropped [${report.partitionsDropped.join(', ')}]` +
        `${report.partitionsPostponed.length ? `, postponed [${report.partitionsPostponed.join(', ')}] (lock busy)` : ''}` +
        `, ${report.eventsDeleted} event(s), ${report.partsDeleted} event part(s), ${report.hourlyRowsDeleted} hourly row(s),` +
        ` ${report.issuesDeleted} issue(s),` +
        ` ${report.alertHistoryDeleted} alert history row(s), ${report.sessionsDeleted} session(s),` +
        ` ${report.artifactBundlesDeleted} source map bundle(s), ${report.chunksDeleted} upload chunk(s),` +
        ` ${report.auditEntriesDeleted} audit log row(s), ${report.feedbackDeleted} feedback,` +
        ` ${report.attachmentsDeleted} attachment(s), ${report.orphanAttachmentsDeleted} attachment(s) of no stored event, ${report.blobsDeleted} file blob(s), ${report.uptimeRowsDeleted} uptime row(s), ${report.cronCheckInsDeleted} cron check-in(s) deleted`,
    );
  }
}

/** The cutoff of the default retention (projects without one of their own) and of each override. */
function cutoffs(now: Date, defaultDays: number, overrides: ProjectRetention[]): RowDeletion[] {
  const except = overrides.map((project) => project.projectId);
  return [
    except.length > 0
      ? { before: cutoffOf(now, defaultDays), except }
      : { before: cutoffOf(now, defaultDays) },
    ...overrides.map((project) => ({ before: cutoffOf(now, project.days), only: [project.projectId] })),
  ];
}

function startOfUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** Runs a batch delete until a batch comes back short; returns the total. */
async function drain(deleteBatch: (limit: number) => Promise<number>, batch = BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(batch);
    total += deleted;
    if (deleted < batch) return total;
  }
}
