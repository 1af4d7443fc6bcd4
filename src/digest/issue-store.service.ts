import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AlertTrigger } from '../issues/transitions/alert-trigger';
import { AlertTriggerProducer, RecordedTriggers } from '../issues/transitions/alert-trigger.producer';
import { EventPartitions } from '../events/event-partitions';
import { FeedbackRepository } from '../feedback/feedback.repository';
import { IssueActivityRepository } from '../issues/issue-activity.repository';
import { IssueLockedForBatch, IssuesRepository } from '../issues/issues.repository';
import { ReleasesRepository } from '../releases/releases.repository';
import { RollupsRepository } from '../rollups/rollups.repository';
import type { KnownRelease } from '../releases/release-order';
import { IssueBatch, lifecycleChange, LifecycleChange } from './issue-lifecycle';
import {
  collectGroups,
  daysWritten,
  dedupe,
  DigestItem,
  GroupInBatch,
  groupId,
  IssueTotals,
  totalsPerIssue,
} from './digest-batch';
import { EventBatchWriter } from './event-batch-writer';

export type { DigestItem };

export interface StoreOutcome {
  stored: number;
  duplicates: number;
  /** Events whose project no longer exists. */
  orphaned: number;
  newIssues: {
    id: number;
    projectId: number;
    number: number;
    firstSeen: Date;
    firstRelease: string | null;
    firstEnvironment: string;
  }[];
  /** Lifecycle triggers, recorded in the outbox within the same transaction; published after it. */
  triggers: RecordedTriggers;
}

/**
 * Writes a batch of events in one transaction: one multi-row insert for the events and one update per
 * batch for the issues, instead of a transaction per event.
 *
 * Correctness under at-least-once delivery and parallel workers:
 * - events are inserted with ON CONFLICT DO NOTHING on (project_id, id), and issues are counted only
 *   for the rows that insert actually returned, so a re-run or a duplicate send never double-counts;
 * - issue numbers are allocated while holding the project's row lock, and missing issues are looked up
 *   again under that lock, so two workers never create the same group twice or share a short_id;
 * - locks are taken in the order written once in issues.repository.ts, so that concurrent batches
 *   wait for each other instead of deadlocking;
 * - the rollups are counted from the events the insert returned, and recorded in the same
 *   transaction for a fold to add (see RollupsRepository.record and RollupFolder).
 */
@Injectable()
export class IssueStoreService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly alertTriggers: AlertTriggerProducer,
    private readonly partitions: EventPartitions,
    private readonly rollups: RollupsRepository,
    private readonly releases: ReleasesRepository,
    private readonly activity: IssueActivityRepository,
    private readonly issues: IssuesRepository,
    private readonly eventWriter: EventBatchWriter,
    private readonly feedback: FeedbackRepository,
  ) {}

  async storeBatch(items: DigestItem[]): Promise<StoreOutcome> {
    const unique = dedupe(items);
    await this.partitions.ensureFor(daysWritten(unique));
    try {
      return await this.storeCommitted(unique);
    } catch (error) {
      // A partition this worker knew about was dropped since (events older than the retention
      // arriving late): learn again, create what is missing, and store them like the others.
      if (!isMissingPartition(error)) throw error;
      this.partitions.forget();
      await this.partitions.ensureFor(daysWritten(unique));
      return this.storeCommitted(unique);
    }
  }

  /** One transaction; the parts it wrote are remembered once it has committed. */
  private async storeCommitted(items: DigestItem[]): Promise<StoreOutcome> {
    const writtenParts = new Set<string>();
    const outcome = await this.dataSource.transaction((manager) => this.store(manager, items, writtenParts));
    this.eventWriter.remember(writtenParts);
    return outcome;
  }

  private async store(
    manager: EntityManager,
    items: DigestItem[],
    writtenParts: Set<string>,
  ): Promise<StoreOutcome> {
    const groups = collectGroups(items);
    await this.attachExistingIssues(manager, [...groups.values()]);
    const newIssues = await this.createMissingIssues(manager, groups);

    const storable = items.filter((item) => groups.get(groupId(item))?.issueId !== undefined);
    const inserted = await this.eventWriter.insertEvents(manager, storable, groups, writtenParts);
    const triggers = await this.updateIssues(manager, storable, inserted, groups);
    triggers.push(...(await this.linkWaitingFeedback(manager, storable, inserted, groups)));
    // After the issues (the lock order is in issues.repository.ts).
    await this.releases.countNewIssues(
      manager,
      newIssues.flatMap((issue) =>
        issue.firstRelease === null
          ? []
          : [
              {
                projectId: issue.projectId,
                version: issue.firstRelease,
                environment: issue.firstEnvironment,
                at: issue.firstSeen,
              },
            ],
      ),
    );
    await this.rollups.record(
      manager,
      storable
        .filter((item) => inserted.has(`${item.projectId}:${item.eventId}`))
        .map((item) => ({
          projectId: item.projectId,
          issueId: groups.get(groupId(item))?.issueId as number,
          event: item.event,
          receivedAt: item.receivedAt,
        })),
    );

    for (const issue of newIssues) {
      triggers.push({
        alertType: 'new_issue',
        projectId: issue.projectId,
        issueId: issue.id,
        occurredAt: issue.firstSeen.toISOString(),
      });
    }
    return {
      stored: inserted.size,
      duplicates: storable.length - inserted.size,
      orphaned: items.length - storable.length,
      newIssues,
      triggers: await this.alertTriggers.record(manager, triggers),
    };
  }

  /**
   * Feedback that came before its event is linked to the event's issue now (one statement, after
   * the issues: see the lock order in issues.repository.ts), and alerts as new feedback on it.
   */
  private async linkWaitingFeedback(
    manager: EntityManager,
    storable: DigestItem[],
    inserted: Set<string>,
    groups: Map<string, GroupInBatch>,
  ): Promise<AlertTrigger[]> {
    const linked = await this.feedback.linkToEvents(
      manager,
      storable
        .filter((item) => inserted.has(`${item.projectId}:${item.eventId}`))
        .map((item) => ({
          projectId: item.projectId,
          eventId: item.eventId,
          issueId: groups.get(groupId(item))?.issueId as number,
          environment: item.event.environment,
          release: item.event.release,
        })),
    );
    return linked.map((row) => ({
      alertType: 'new_feedback',
      projectId: row.projectId,
      issueId: row.issueId,
      occurredAt: row.receivedAt.toISOString(),
    }));
  }

  private async attachExistingIssues(manager: EntityManager, groups: GroupInBatch[]): Promise<void> {
    if (groups.length === 0) return;
    const existing = await this.issues.findByGroupingKeys(manager, groups);
    const byId = new Map(groups.map((group) => [`${group.projectId}\n${group.key}`, group]));
    for (const issue of existing) {
      const group = byId.get(`${issue.projectId}\n${issue.groupingKey}`);
      if (group) group.issueId = issue.id;
    }
  }

  private async createMissingIssues(
    manager: EntityManager,
    groups: Map<string, GroupInBatch>,
  ): Promise<StoreOutcome['newIssues']> {
    let missing = [...groups.values()].filter((group) => group.issueId === undefined);
    if (missing.length === 0) return [];

    const projectIds = [...new Set(missing.map((group) => group.projectId))].sort((a, b) => a - b);
    const liveProjects = await this.issues.lockProjectsForNumbering(manager, projectIds);
    // Another worker may have created some of these issues before we got the lock.
    await this.attachExistingIssues(manager, missing);
    missing = missing.filter((group) => group.issueId === undefined && liveProjects.has(group.projectId));
    if (missing.length === 0) return [];

    const perProject = new Map<number, GroupInBatch[]>();
    for (const group of missing) {
      perProject.set(group.projectId, [...(perProject.get(group.projectId) ?? []), group]);
    }
    const numbers = new Map<GroupInBatch, number>();
    for (const [projectId, projectGroups] of [...perProject].sort(([a], [b]) => a - b)) {
      const last = await this.issues.reserveNumbers(manager, projectId, projectGroups.length);
      projectGroups.forEach((group, index) => numbers.set(group, last - projectGroups.length + 1 + index));
    }

    const created = await this.issues.insertNew(
      manager,
      missing.map((group) => ({
        projectId: group.projectId,
        groupingKey: group.key,
        number: numbers.get(group) as number,
        type: group.group.type,
        message: group.group.message,
        culprit: group.group.culprit,
        level: group.level,
        firstSeen: group.firstSeen,
        lastSeen: group.lastSeen,
        firstRelease: group.firstRelease,
        lastRelease: group.lastRelease,
      })),
    );
    const byNumber = new Map(missing.map((group) => [`${group.projectId}:${numbers.get(group)}`, group]));
    return created.map((issue) => {
      const group = byNumber.get(`${issue.projectId}:${issue.number}`) as GroupInBatch;
      group.issueId = issue.id;
      return {
        id: issue.id,
        projectId: issue.projectId,
        number: issue.number,
        firstSeen: group.firstSeen,
        firstRelease: group.firstRelease,
        firstEnvironment: group.firstEnvironment,
      };
    });
  }

  private async updateIssues(
    manager: EntityManager,
    items: DigestItem[],
    inserted: Set<string>,
    groups: Map<string, GroupInBatch>,
  ): Promise<AlertTrigger[]> {
    const perIssue = totalsPerIssue(items, inserted, groups);
    if (perIssue.size === 0) return [];
    const ids = [...perIssue.keys()].sort((a, b) => a - b);
    const previous = await this.issues.lockForBatch(manager, ids);
    // Merged while this batch stored its events (a merge locks the issues it merges, so it is seen
    // here): the batch starts again, and finds the survivor.
    if (previous.some((issue) => issue.mergedIntoId !== null)) throw new IssueMergedMeanwhileError();
    const changes = await this.lifecycleChanges(manager, previous, perIssue);
    const rows = await this.issues.addBatch(
      manager,
      ids.map((id) => {
        const batch = perIssue.get(id) as IssueTotals;
        return {
          id,
          added: batch.added,
          first: batch.first,
          last: batch.last,
          lastRelease: batch.lastRelease ?? null,
          change: changes.get(id) ?? null,
        };
      }),
    );
    await this.activity.record(
      manager,
      [...changes].map(([issueId, change]) => ({
        issueId,
        kind: change,
        data:
          change === 'regressed'
            ? { releases: [...(perIssue.get(issueId)?.releases ?? [])] }
            : { by: 'snooze' },
      })),
    );
    return rows.flatMap((row): AlertTrigger[] => {
      const change = changes.get(row.id);
      if (!change) return [];
      return [
        {
          alertType: change === 'regressed' ? 'regression' : 'unmute',
          projectId: row.project_id,
          issueId: row.id,
          occurredAt: new Date(
            change === 'regressed' ? (row.regressed_at ?? Date.now()) : Date.now(),
          ).toISOString(),
        },
      ];
    });
  }

  /**
   * Which issues the batch reopens (see lifecycleChange). Release ordering reads the releases
   * involved only when an issue was resolved in a release, which is rare.
   */
  private async lifecycleChanges(
    manager: EntityManager,
    previous: IssueLockedForBatch[],
    perIssue: Map<number, IssueBatch>,
  ): Promise<Map<number, NonNullable<LifecycleChange>>> {
    const known = new Map<string, KnownRelease>();
    const byRelease = previous.filter((issue) => issue.state === 'resolved' && issue.resolvedIn !== null);
    for (const projectId of new Set(byRelease.map((issue) => issue.projectId))) {
      const versions = new Set<string>();
      for (const issue of byRelease.filter((candidate) => candidate.projectId === projectId)) {
        if (issue.resolvedAbove !== null) versions.add(issue.resolvedAbove);
        for (const version of perIssue.get(issue.id)?.releases ?? []) versions.add(version);
      }
      for (const release of await this.releases.known(manager, projectId, [...versions]))
        known.set(`${projectId}\n${release.version}`, release);
    }
    const now = new Date();
    const changes = new Map<number, NonNullable<LifecycleChange>>();
    for (const issue of previous) {
      const batch = perIssue.get(issue.id);
      if (!batch) continue;
      const change = lifecycleChange(
        issue,
        batch,
        now,
        (version) => known.get(`${issue.projectId}\n${version}`) ?? { version },
      );
      if (change) changes.set(issue.id, change);
    }
    return changes;
  }
}

/**
 * A batch met an issue that a merge had just made a pointer. Carries PostgreSQL's code for a
 * serialization failure, so that the digest retries the batch at once (storeRetryingConflicts).
 */
export class IssueMergedMeanwhileError extends Error {
  readonly code = '40001';

  constructor() {
    super('an issue of the batch was merged into another meanwhile');
  }
}

/** PostgreSQL's answer to a row whose partition does not exist. */
function isMissingPartition(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === '23514' && /no partition of relation/.test(message ?? '');
}
