import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AttachmentsRepository } from '../../attachments/attachments.repository';
import { AuditActor, AuditLog } from '../../audit/audit-log.service';
import { NotFoundError } from '../../common/domain-errors';
import { DeletedEvent, EventsRepository, PersonMatch } from '../../events/events.repository';
import type { NormalisedEvent } from '../../events/normalised-event';
import { FeedbackRepository } from '../../feedback/feedback.repository';
import { IssueRemovalRepository } from '../../issues/issue-removal.repository';
import { ProjectsRepository } from '../../projects/projects.repository';
import { rollupDelta } from '../../rollups/rollup-delta';
import { ReleasesRepository } from '../../releases/releases.repository';
import { RollupsRepository } from '../../rollups/rollups.repository';
import { BlobStore } from '../../storage/blob-store';
import { PendingBlobsRepository } from '../../storage/pending-blobs.repository';
import { ErasurePreview, ErasureReport } from '../dto/erasure-report.response';
import { emailOf, parsePersonIdentifier } from './person-identifier';
import { PersonTracesService } from './person-traces.service';

/** Events read per statement while an issue's events are walked. */
const SCAN_PAGE = 1_000;
/** Events erased per transaction: short transactions, short locks, progress kept if cut short. */
const ERASE_BATCH = 200;
/** Recorded rollup deltas folded per statement before a batch subtracts its counts. */
const FOLD_LIMIT = 5_000;

/**
 * Erases a person's data from a project (docs/data-protection.md, "Erasing a person's data"): every
 * event whose user is that person, in every partition, with the files attached to them and the
 * feedback about them or from their address (with its screenshots); the issue counts, user counts
 * and rollups made exact again; issues left without events deleted; blobs deleted; then release
 * health's users and sessions and the digest's failed jobs (PersonTracesService).
 *
 * The project's issues are walked one by one through their (timestamp, id) index, a page of
 * SCAN_PAGE events per statement, and what matches is erased ERASE_BATCH events per transaction.
 * Each transaction takes its locks in the order of issues.repository.ts: the project (key share,
 * by the fold), the events (deleted), their issues (no key update, like a digest batch), the
 * rollup rows (the issues' deltas still recorded folded first, so the subtraction finds them) and
 * the releases' event counts, as the fold takes them, then the issues' counts.
 */
@Injectable()
export class ErasureService {
  private readonly logger = new Logger(ErasureService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly projects: ProjectsRepository,
    private readonly events: EventsRepository,
    private readonly issues: IssueRemovalRepository,
    private readonly rollups: RollupsRepository,
    private readonly releases: ReleasesRepository,
    private readonly feedback: FeedbackRepository,
    private readonly attachments: AttachmentsRepository,
    private readonly pendingBlobs: PendingBlobsRepository,
    private readonly blobs: BlobStore,
    private readonly audit: AuditLog,
    private readonly traces: PersonTracesService,
  ) {}

  async erase(projectId: number, identifier: string, actor: AuditActor): Promise<ErasureReport> {
    const match = parsePersonIdentifier(identifier);
    if (!(await this.projects.exists(projectId))) throw new NotFoundError('project not found');
    const report = emptyReport(match);
    const issues: IssueTally = { touched: new Set(), deleted: new Set() };
    await this.scan(projectId, match, ERASE_BATCH, async (keys) => {
      const blobKeys = await this.dataSource.transaction((manager) =>
        this.eraseBatch(manager, projectId, keys, report, issues),
      );
      await this.deleteBlobs(blobKeys);
    });
    const email = emailOf(match);
    if (email) {
      const blobKeys = await this.dataSource.transaction((manager) =>
        this.eraseFeedbackFrom(manager, projectId, email, report),
      );
      await this.deleteBlobs(blobKeys);
    }
    Object.assign(report.erased, await this.traces.erase(projectId, match));
    finish(report, issues);
    await this.audit.record(
      actor,
      'project.user_erase',
      { type: 'project', id: projectId },
      // The person is named by a hash only: the audit log must not keep what was erased.
      { field: match.field ?? 'any', value_sha256: sha256(match.value), ...report, identifier: undefined },
    );
    this.logger.log(
      `erased a person's data from project ${projectId}: ${report.events_deleted} event(s), ` +
        `${report.issues_deleted} issue(s) deleted, ${report.feedback_deleted} feedback, ` +
        `${report.attachments_deleted} attachment(s), ${report.erased.feedback_attachments} feedback file(s), ` +
        `${report.erased.release_health_users} release health row(s), ${report.erased.session_states} session(s), ` +
        `${report.erased.failed_jobs} failed job(s)`,
    );
    return report;
  }

  /**
   * What `erase` would remove, counted by running it: the same scan, the same statements in one
   * transaction that is rolled back (all of the person's events in one batch, so that an issue left
   * without events is found as the erasure finds it, with the locks of one batch, in their order),
   * and the same search of Redis and the failed jobs with nothing deleted. Blobs are left alone.
   */
  async preview(projectId: number, identifier: string): Promise<ErasurePreview> {
    const match = parsePersonIdentifier(identifier);
    if (!(await this.projects.exists(projectId))) throw new NotFoundError('project not found');
    const report = emptyReport(match);
    const issues: IssueTally = { touched: new Set(), deleted: new Set() };
    const keys: EventKey[] = [];
    await this.scan(projectId, match, Infinity, async (found) => void keys.push(...found));
    const email = emailOf(match);
    await inRolledBackTransaction(this.dataSource, async (manager) => {
      if (keys.length > 0) await this.eraseBatch(manager, projectId, keys, report, issues);
      if (email) await this.eraseFeedbackFrom(manager, projectId, email, report);
      Object.assign(report.erased, await this.traces.erase(projectId, match, { manager }));
    });
    finish(report, issues);
    return {
      identifier: report.identifier,
      issues_updated: report.issues_updated,
      issues_deleted: report.issues_deleted,
      erased: report.erased,
    };
  }

  /**
   * Walks the project's issues one by one through their (timestamp, id) index, SCAN_PAGE events
   * per statement, and hands the person's events to `take` `batchSize` at a time.
   */
  private async scan(
    projectId: number,
    match: PersonMatch,
    batchSize: number,
    take: (keys: EventKey[]) => Promise<void>,
  ): Promise<void> {
    let pending: EventKey[] = [];
    for (const issueId of await this.issues.idsOfProject(projectId)) {
      let after: { at: Date; id: string } | null = null;
      for (;;) {
        const page = await this.events.pageOfPersonMatches(issueId, match, after, SCAN_PAGE);
        for (const row of page) {
          if (row.matched) pending.push({ id: row.id, receivedAt: row.received_at });
        }
        if (pending.length >= batchSize) {
          await take(pending);
          pending = [];
        }
        if (page.length < SCAN_PAGE) break;
        const last = page[page.length - 1];
        after = { at: last.timestamp, id: last.id };
      }
    }
    if (pending.length > 0) await take(pending);
  }

  /** Erases these events in the caller's transaction; returns the blob keys of their files. */
  private async eraseBatch(
    manager: EntityManager,
    projectId: number,
    keys: EventKey[],
    report: ErasureReport,
    issues: IssueTally,
  ): Promise<string[]> {
    await this.projects.lockKeyShare(manager, projectId);
    const eventIds = keys.map((key) => key.id);
    const blobKeys = await this.attachments.blobsOfEvents(manager, projectId, eventIds);
    const deleted = await this.events.deleteByKeys(manager, projectId, keys);
    if (deleted.length === 0) return blobKeys;
    const issueIds = [...new Set(deleted.map((event) => event.issueId))].sort((a, b) => a - b);
    await this.issues.lockForErasure(manager, issueIds);
    while ((await this.rollups.foldIssues(manager, issueIds, FOLD_LIMIT)) === FOLD_LIMIT);
    const delta = rollupDelta(
      deleted.map((event) => ({ projectId, issueId: event.issueId, event: asNormalised(event) })),
    );
    report.rollup_rows_changed += await this.rollups.subtract(manager, delta);
    report.rollup_rows_changed += await this.releases.subtractEvents(manager, delta.releases);
    await this.issues.subtractErased(manager, perIssue(deleted));
    for (const issueId of await this.issues.withoutEvents(manager, issueIds)) {
      await this.rollups.subtractIssueFromProject(manager, issueId);
      await this.issues.delete(manager, issueId);
      issues.deleted.add(issueId);
    }
    const feedbackIds = await this.feedback.deleteOfPerson(manager, projectId, eventIds, null);
    const screenshots = await this.attachments.deleteOfEvents(manager, projectId, feedbackIds);
    report.feedback_deleted += feedbackIds.length;
    report.erased.feedback_attachments += screenshots.length;
    report.events_deleted += deleted.length;
    report.attachments_deleted += blobKeys.length;
    for (const issueId of issueIds) issues.touched.add(issueId);
    return [...blobKeys, ...screenshots];
  }

  /** The feedback sent from the person's address, with its files, in the caller's transaction. */
  private async eraseFeedbackFrom(
    manager: EntityManager,
    projectId: number,
    email: string,
    report: ErasureReport,
  ): Promise<string[]> {
    const feedbackIds = await this.feedback.deleteOfPerson(manager, projectId, [], email);
    report.feedback_deleted += feedbackIds.length;
    const blobKeys = await this.attachments.deleteOfEvents(manager, projectId, feedbackIds);
    report.erased.feedback_attachments += blobKeys.length;
    return blobKeys;
  }

  /**
   * Deleting the files' rows put their blobs on the pending list (by trigger): delete them now
   * rather than at the next sweep.
   */
  private async deleteBlobs(blobKeys: string[]): Promise<void> {
    if (blobKeys.length === 0) return;
    await this.blobs.delete(blobKeys);
    await this.pendingBlobs.forget(blobKeys);
  }
}

/** An event by its key: id and arrival, so each is found in its own partition. */
type EventKey = { id: string; receivedAt: Date };

/** The issues that had events erased, and those of them deleted for want of any left. */
interface IssueTally {
  touched: Set<number>;
  deleted: Set<number>;
}

function emptyReport(match: PersonMatch): ErasureReport {
  return {
    identifier: describe(match),
    events_deleted: 0,
    issues_updated: 0,
    issues_deleted: 0,
    feedback_deleted: 0,
    attachments_deleted: 0,
    rollup_rows_changed: 0,
    erased: {
      events: 0,
      event_attachments: 0,
      feedback: 0,
      feedback_attachments: 0,
      release_health_users: 0,
      session_user_entries: 0,
      session_states: 0,
      failed_jobs: 0,
    },
  };
}

/** The report's totals: an issue deleted is counted as deleted only, not also as updated. */
function finish(report: ErasureReport, issues: IssueTally): void {
  report.erased.events = report.events_deleted;
  report.erased.event_attachments = report.attachments_deleted;
  report.erased.feedback = report.feedback_deleted;
  report.issues_deleted = issues.deleted.size;
  report.issues_updated = [...issues.touched].filter((id) => !issues.deleted.has(id)).length;
}

/** Thrown at the end of the preview's work, and caught: its transaction rolls back. */
class PreviewRolledBack extends Error {}

async function inRolledBackTransaction(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<void>,
): Promise<void> {
  try {
    await dataSource.transaction(async (manager) => {
      await work(manager);
      throw new PreviewRolledBack('the preview changes nothing');
    });
  } catch (error) {
    if (!(error instanceof PreviewRolledBack)) throw error;
  }
}

/** What the rollups counted an event under, from its stored row (see storedPayload). */
function asNormalised(event: DeletedEvent): NormalisedEvent {
  const payload = event.payload as Partial<NormalisedEvent>;
  return {
    ...payload,
    tags: payload.tags ?? {},
    contexts: payload.contexts ?? {},
    timestamp: event.timestamp.toISOString(),
    environment: event.environment,
    release: event.release,
    level: event.level,
  } as NormalisedEvent;
}

function perIssue(events: DeletedEvent[]): Array<{ id: number; count: number; first: Date; last: Date }> {
  const byIssue = new Map<number, { id: number; count: number; first: Date; last: Date }>();
  for (const event of events) {
    const entry = byIssue.get(event.issueId);
    if (!entry)
      byIssue.set(event.issueId, {
        id: event.issueId,
        count: 1,
        first: event.timestamp,
        last: event.timestamp,
      });
    else {
      entry.count++;
      if (event.timestamp < entry.first) entry.first = event.timestamp;
      if (event.timestamp > entry.last) entry.last = event.timestamp;
    }
  }
  return [...byIssue.values()].sort((a, b) => a.id - b.id);
}

function describe(match: PersonMatch): string {
  const prefix = { id: 'id:', email: 'email:', username: 'username:', ip_address: 'ip:' };
  return match.field ? `${prefix[match.field]}${match.value}` : match.value;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
