import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource, EntityManager } from 'typeorm';
import type { AlertTrigger } from '../issues/transitions/alert-trigger';
import { AlertTriggerProducer, RecordedTriggers } from '../issues/transitions/alert-trigger.producer';
import { EventPartitions, partDay } from '../events/event-partitions';
import { splitParts } from '../events/event-parts';
import { storedPayload } from '../events/event-payload';
import { IssueActivityRepository } from '../issues/issue-activity.repository';
import { ReleasesRepository } from '../releases/releases.repository';
import { RollupsRepository } from '../rollups/rollups.repository';
import type { KnownRelease } from '../releases/release-order';
import { IssueBeforeBatch, IssueBatch, lifecycleChange, LifecycleChange } from './issue-lifecycle';
import type { NormalisedEvent } from '../events/normalised-event';
import type { GroupingResult } from './grouping';

/**
 * How far back a resent event id is looked for in earlier partitions (the partition an event is
 * written to dedupes by itself). Two copies of an event in flight at once (a resend while the first
 * is still queued, in another job) are stored once: each batch takes a transaction-scoped advisory
 * lock per event before it looks for the event, so the second waits for the first to commit and
 * then finds it.
 */
export const DEDUPE_LOOKBACK_MS = 48 * 3_600_000;

/** First key of the digest's per-event advisory locks (two-key form; the second is the event's hash). */
const EVENT_LOCK_SPACE = 0x4556;

/**
 * Serialises issue numbering per project. NO KEY UPDATE is enough for that, and unlike FOR UPDATE it
 * does not conflict with the KEY SHARE locks that inserting events and issues takes on their
 * project: other batches keep storing events of the project meanwhile, and batches of different
 * projects cannot deadlock on them.
 */
export const LOCK_PROJECTS_FOR_NUMBERING =
  'SELECT id FROM projects WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE';

/** One event ready to be stored: parsed, normalised and grouped outside the transaction. */
export interface DigestItem {
  projectId: number;
  eventId: string;
  receivedAt: Date;
  event: NormalisedEvent;
  group: GroupingResult;
}

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
  }[];
  /** Lifecycle triggers, recorded in the outbox within the same transaction; published after it. */
  triggers: RecordedTriggers;
}

interface GroupInBatch {
  projectId: number;
  key: string;
  group: GroupingResult;
  firstSeen: Date;
  lastSeen: Date;
  /** The releases of its earliest and latest events in the batch. */
  firstRelease: string | null;
  lastRelease: string | null;
  level: string;
  issueId?: number;
}

/**
 * Event parts (issue, hash, day) this process has seen committed, so that their content is not sent
 * again with every event that repeats them. About 100 bytes an entry.
 */
const COMMITTED_PARTS_REMEMBERED = 100_000;

interface StoredPart {
  issueId: number;
  hash: string;
  day: string;
  content: string;
}

function partKey(issueId: number, hash: string, day: string): string {
  return `${issueId}:${hash}:${day}`;
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
 * - locks are always taken in the same order (projects by id, events by key, issues by id) so that
 *   concurrent batches wait for each other instead of deadlocking;
 * - the rollups are counted from the events the insert returned, and recorded in the same
 *   transaction for a fold to add (see RollupsRepository.record and RollupFolder).
 */
@Injectable()
export class IssueStoreService {
  private readonly committedParts = new LRUCache<string, true>({ max: COMMITTED_PARTS_REMEMBERED });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly alertTriggers: AlertTriggerProducer,
    private readonly partitions: EventPartitions,
    private readonly rollups: RollupsRepository,
    private readonly releases: ReleasesRepository,
    private readonly activity: IssueActivityRepository,
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
    for (const key of writtenParts) this.committedParts.set(key, true);
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
    const inserted = await this.insertEvents(manager, storable, groups, writtenParts);
    const triggers = await this.updateIssues(manager, storable, inserted, groups);
    // After the issues, as the fold takes its locks (issues, then releases).
    await this.releases.countNewIssues(
      manager,
      newIssues.flatMap((issue) =>
        issue.firstRelease === null
          ? []
          : [{ projectId: issue.projectId, version: issue.firstRelease, at: issue.firstSeen }],
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

  private async attachExistingIssues(manager: EntityManager, groups: GroupInBatch[]): Promise<void> {
    if (groups.length === 0) return;
    const rows: { id: number; project_id: number; grouping_key: string }[] = await manager.query(
      `SELECT coalesce(i.merged_into_id, i.id) AS id, i.project_id, i.grouping_key
         FROM issues i
         JOIN unnest($1::int[], $2::text[]) AS g(project_id, grouping_key)
           ON i.project_id = g.project_id AND i.grouping_key = g.grouping_key`,
      [groups.map((group) => group.projectId), groups.map((group) => group.key)],
    );
    const byId = new Map(groups.map((group) => [`${group.projectId}\n${group.key}`, group]));
    for (const row of rows) {
      const group = byId.get(`${row.project_id}\n${row.grouping_key}`);
      if (group) group.issueId = row.id;
    }
  }

  private async createMissingIssues(
    manager: EntityManager,
    groups: Map<string, GroupInBatch>,
  ): Promise<StoreOutcome['newIssues']> {
    let missing = [...groups.values()].filter((group) => group.issueId === undefined);
    if (missing.length === 0) return [];

    const projectIds = [...new Set(missing.map((group) => group.projectId))].sort((a, b) => a - b);
    const locked: { id: number }[] = await manager.query(LOCK_PROJECTS_FOR_NUMBERING, [projectIds]);
    const liveProjects = new Set(locked.map((row) => row.id));
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
      const [{ next_issue_number: last }] = await updateReturning<{ next_issue_number: number }>(
        manager,
        `UPDATE projects SET next_issue_number = next_issue_number + $2 WHERE id = $1 RETURNING next_issue_number`,
        [projectId, projectGroups.length],
      );
      projectGroups.forEach((group, index) => numbers.set(group, last - projectGroups.length + 1 + index));
    }

    const created: { id: number; project_id: number; number: number }[] = await manager.query(
      `INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state,
                           event_count, first_seen, last_seen, first_release, last_release)
       SELECT g.project_id, g.grouping_key, g.number, g.type, g.message, g.culprit, g.level, 'open', 0,
              g.first_seen, g.last_seen, g.first_release, g.last_release
         FROM unnest($1::int[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[],
                     $8::timestamptz[], $9::timestamptz[], $10::text[], $11::text[])
           AS g(project_id, grouping_key, number, type, message, culprit, level, first_seen, last_seen,
                first_release, last_release)
       RETURNING id, project_id, number`,
      [
        missing.map((group) => group.projectId),
        missing.map((group) => group.key),
        missing.map((group) => numbers.get(group)),
        missing.map((group) => group.group.type),
        missing.map((group) => group.group.message),
        missing.map((group) => group.group.culprit),
        missing.map((group) => group.level),
        missing.map((group) => group.firstSeen),
        missing.map((group) => group.lastSeen),
        missing.map((group) => group.firstRelease),
        missing.map((group) => group.lastRelease),
      ],
    );
    const byNumber = new Map(missing.map((group) => [`${group.projectId}:${numbers.get(group)}`, group]));
    return created.map((row) => {
      const group = byNumber.get(`${row.project_id}:${row.number}`) as GroupInBatch;
      group.issueId = row.id;
      return {
        id: row.id,
        projectId: row.project_id,
        number: row.number,
        firstSeen: group.firstSeen,
        firstRelease: group.firstRelease,
      };
    });
  }

  /** Returns the keys (`project:event`) of the events that were not stored before. */
  private async insertEvents(
    manager: EntityManager,
    items: DigestItem[],
    groups: Map<string, GroupInBatch>,
    writtenParts: Set<string>,
  ): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const sorted = [...items].sort(
      (a, b) => a.projectId - b.projectId || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0),
    );
    const lookback = new Date(
      Math.min(...sorted.map((item) => item.receivedAt.getTime())) - DEDUPE_LOOKBACK_MS,
    );
    // A statement of its own, so that the insert's snapshot, taken after the locks are granted, sees
    // a copy committed meanwhile. Sorted, so that two batches wait for each other, never deadlock.
    await manager.query(
      `SELECT pg_advisory_xact_lock($1::int, hashtext(e.id))
         FROM unnest($2::text[]) AS e(id) ORDER BY hashtext(e.id)`,
      [EVENT_LOCK_SPACE, sorted.map((item) => `${item.projectId}:${item.eventId}`)],
    );
    const payloads = sorted.map((item) => splitParts(storedPayload(item.event, item.group)));
    // The rows travel as one JSON document: JSON.stringify is native and escapes each payload once,
    // where arrays of text would go through node-pg's array-literal escaping of every payload.
    const rows: { project_id: number; id: string }[] = await manager.query(
      `INSERT INTO events (project_id, id, issue_id, timestamp, received_at, environment, release, level, payload)
       SELECT e.project_id, e.id, e.issue_id, e.timestamp, e.received_at, e.environment, e.release, e.level,
              e.payload
         FROM jsonb_to_recordset($1::jsonb)
           AS e(project_id int, id uuid, issue_id int, timestamp timestamptz, received_at timestamptz,
                environment text, release text, level text, payload jsonb)
        WHERE NOT EXISTS (SELECT 1 FROM events stored
                           WHERE stored.id = e.id AND stored.project_id = e.project_id
                             AND stored.received_at >= $2)
       ON CONFLICT DO NOTHING
       RETURNING project_id, id`,
      [
        JSON.stringify(
          sorted.map((item, index) => ({
            project_id: item.projectId,
            id: item.eventId,
            issue_id: groups.get(groupId(item))?.issueId,
            timestamp: item.event.timestamp,
            received_at: item.receivedAt,
            environment: item.event.environment,
            release: item.event.release,
            level: item.event.level,
            payload: payloads[index].payload,
          })),
        ),
        lookback,
      ],
    );
    // After the events: `events` then `event_parts` is the order in which everything else takes
    // these tables' locks (retention dropping a day's partitions, an issue's deletion cascading), so
    // that a batch and a drop wait for each other instead of deadlocking.
    await this.insertParts(
      manager,
      sorted.map((item, index) => ({
        issueId: groups.get(groupId(item))?.issueId as number,
        day: partDay(item.receivedAt),
        parts: payloads[index].parts,
      })),
      writtenParts,
    );
    return new Set(rows.map((row) => `${row.project_id}:${row.id}`));
  }

  /**
   * The parts the batch's events share with their issue's other events of the same span of days
   * (see event-parts.ts), each written once. Most are there already: those this process has seen
   * committed are not sent again, only checked for (a deleted issue or dropped day takes its parts
   * along, and then they are written anew). Sorted, so concurrent batches take the rows' locks in
   * the same order.
   */
  private async insertParts(
    manager: EntityManager,
    events: { issueId: number; day: string; parts: Map<string, string> }[],
    writtenParts: Set<string>,
  ): Promise<void> {
    const unique = new Map<string, StoredPart>();
    for (const { issueId, day, parts } of events) {
      for (const [hash, content] of parts)
        unique.set(partKey(issueId, hash, day), { issueId, hash, day, content });
    }
    if (unique.size === 0) return;
    const rows = [...unique.values()].sort(
      (a, b) =>
        a.issueId - b.issueId || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : a.day < b.day ? -1 : 1),
    );
    const known: StoredPart[] = [];
    const unknown: StoredPart[] = [];
    for (const row of rows)
      (this.committedParts.has(partKey(row.issueId, row.hash, row.day)) ? known : unknown).push(row);
    const missing: { issue_id: number; hash: string; day: string }[] = await manager.query(
      `WITH written AS (
         INSERT INTO event_parts (issue_id, hash, day, content)
         SELECT p.issue_id, p.hash, p.day, p.content
           FROM json_to_recordset($1::json) AS p(issue_id int, hash text, day date, content json)
         ON CONFLICT DO NOTHING
       )
       SELECT k.issue_id, k.hash, k.day::text AS day
         FROM unnest($2::int[], $3::text[], $4::date[]) AS k(issue_id, hash, day)
        WHERE NOT EXISTS (SELECT 1 FROM event_parts p
                           WHERE p.issue_id = k.issue_id AND p.hash = k.hash AND p.day = k.day)`,
      [
        // Content is JSON text already, hash hex and day a date: the document is put together as text.
        `[${unknown
          .map(
            (row) =>
              `{"issue_id":${row.issueId},"hash":"${row.hash}","day":"${row.day}","content":${row.content}}`,
          )
          .join(',')}]`,
        known.map((row) => row.issueId),
        known.map((row) => row.hash),
        known.map((row) => row.day),
      ],
    );
    if (missing.length > 0) {
      // Gone since this process saw them (their issue or day went): forget them and write them anew.
      for (const row of missing) this.committedParts.delete(partKey(row.issue_id, row.hash, row.day));
      return this.insertParts(manager, events, writtenParts);
    }
    for (const row of rows) writtenParts.add(partKey(row.issueId, row.hash, row.day));
  }

  private async updateIssues(
    manager: EntityManager,
    items: DigestItem[],
    inserted: Set<string>,
    groups: Map<string, GroupInBatch>,
  ): Promise<AlertTrigger[]> {
    const perIssue = new Map<number, IssueBatch & { first: Date; last: Date; lastRelease: string | null }>();
    for (const item of items) {
      if (!inserted.has(`${item.projectId}:${item.eventId}`)) continue;
      const issueId = groups.get(groupId(item))?.issueId as number;
      const at = new Date(item.event.timestamp);
      const release = item.event.release ?? null;
      const current = perIssue.get(issueId);
      if (!current) {
        perIssue.set(issueId, {
          added: 1,
          first: at,
          last: at,
          lastRelease: release,
          releases: new Set(release === null ? [] : [release]),
        });
        continue;
      }
      current.added += 1;
      if (release !== null) current.releases.add(release);
      if (at < current.first) current.first = at;
      if (at >= current.last) {
        current.last = at;
        current.lastRelease = release ?? current.lastRelease;
      }
    }
    if (perIssue.size === 0) return [];
    const ids = [...perIssue.keys()].sort((a, b) => a - b);
    // Lock in id order, in a statement of its own, so concurrent batches queue up instead of deadlocking.
    // NO KEY UPDATE does not conflict with the KEY SHARE locks that inserting events takes on issues.
    const previous: (IssueBeforeBatch & { id: number; projectId: number; mergedIntoId: number | null })[] =
      await manager.query(
        `SELECT id, project_id AS "projectId", state, event_count AS "eventCount", resolved_in AS "resolvedIn",
              resolved_above AS "resolvedAbove", mute_until AS "muteUntil", mute_until_count AS "muteUntilCount",
              muted_event_count AS "mutedEventCount", merged_into_id AS "mergedIntoId"
         FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE`,
        [ids],
      );
    // Merged while this batch stored its events (a merge locks the issues it merges, so it is seen
    // here): the batch starts again, and finds the survivor.
    if (previous.some((issue) => issue.mergedIntoId !== null)) throw new IssueMergedMeanwhileError();
    const changes = await this.lifecycleChanges(manager, previous, perIssue);
    const rows = await updateReturning<{ id: number; project_id: number; regressed_at: Date | null }>(
      manager,
      `UPDATE issues i
          SET event_count = i.event_count + b.added,
              first_seen = LEAST(i.first_seen, b.first_ts),
              last_seen = GREATEST(i.last_seen, b.last_ts),
              last_release = CASE WHEN b.last_ts >= i.last_seen THEN coalesce(b.last_release, i.last_release)
                                  ELSE i.last_release END,
              state = CASE WHEN b.change IS NOT NULL THEN 'open' ELSE i.state END,
              last_regressed_at = CASE WHEN b.change = 'regressed' THEN now() ELSE i.last_regressed_at END,
              regression_count = i.regression_count + CASE WHEN b.change = 'regressed' THEN 1 ELSE 0 END,
              resolved_in = CASE WHEN b.change IS NOT NULL THEN NULL ELSE i.resolved_in END,
              resolved_above = CASE WHEN b.change IS NOT NULL THEN NULL ELSE i.resolved_above END,
              muted_at = CASE WHEN b.change IS NOT NULL THEN NULL ELSE i.muted_at END,
              mute_until = CASE WHEN b.change IS NOT NULL THEN NULL ELSE i.mute_until END,
              mute_until_count = CASE WHEN b.change IS NOT NULL THEN NULL ELSE i.mute_until_count END,
              mute_until_users = CASE WHEN b.change IS NOT NULL THEN NULL ELSE i.mute_until_users END
         FROM unnest($1::int[], $2::int[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[])
           AS b(id, added, first_ts, last_ts, last_release, change)
        WHERE i.id = b.id
       RETURNING i.id, i.project_id, i.last_regressed_at AS regressed_at`,
      [
        ids,
        ids.map((id) => perIssue.get(id)?.added),
        ids.map((id) => perIssue.get(id)?.first),
        ids.map((id) => perIssue.get(id)?.last),
        ids.map((id) => perIssue.get(id)?.lastRelease ?? null),
        ids.map((id) => changes.get(id) ?? null),
      ],
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
    previous: (IssueBeforeBatch & { id: number; projectId: number })[],
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

/** TypeORM answers an UPDATE … RETURNING with `[rows, affectedCount]`, unlike SELECT and INSERT. */
async function updateReturning<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  const [rows] = (await manager.query(sql, parameters)) as [T[], number];
  return rows;
}

/** The days whose partitions a batch writes to: its events' arrival days and their parts' days. */
function daysWritten(items: DigestItem[]): Date[] {
  return items.flatMap((item) => [item.receivedAt, new Date(partDay(item.receivedAt))]);
}

function groupId(item: DigestItem): string {
  return `${item.projectId}\n${item.group.key}`;
}

function dedupe(items: DigestItem[]): DigestItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = `${item.projectId}:${item.eventId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function collectGroups(items: DigestItem[]): Map<string, GroupInBatch> {
  const groups = new Map<string, GroupInBatch>();
  for (const item of items) {
    const at = new Date(item.event.timestamp);
    const existing = groups.get(groupId(item));
    if (!existing) {
      groups.set(groupId(item), {
        projectId: item.projectId,
        key: item.group.key,
        group: item.group,
        firstSeen: at,
        lastSeen: at,
        firstRelease: item.event.release ?? null,
        lastRelease: item.event.release ?? null,
        level: item.event.level,
      });
    } else {
      if (at < existing.firstSeen) {
        existing.firstSeen = at;
        existing.firstRelease = item.event.release ?? null;
      }
      if (at > existing.lastSeen) {
        existing.lastSeen = at;
        existing.lastRelease = item.event.release ?? null;
      }
    }
  }
  return groups;
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
