import { Injectable } from '@nestjs/common';
import type { EntityManager, ObjectLiteral } from 'typeorm';
import { Issue, IssueKind, IssueState } from './issue.entity';

/*
 * The writes of the `issues` row, all under the one lock order below. Here: finding issues by
 * grouping key, creating and numbering them, counting what they receive (a digest batch's events,
 * a monitor's failures, through the same statements and in the same order), and their state
 * (triage, assignment, ended snoozes, a monitor's recovery). Beside it, by responsibility: a merge's
 * writes (issue-merges.repository.ts) and those that take issues or their events away, deletion,
 * retention and erasure (issue-removal.repository.ts). The one exception is the rollup fold's user
 * count, the tail of the statement that writes the tag keys (see WRITE_ROLLUPS in
 * rollups.repository.ts for why).
 *
 * LOCK ORDER. Every transaction that takes several of these locks takes them in this order, so that
 * concurrent transactions wait for each other instead of deadlocking (docs/architecture.md links
 * here; the comments elsewhere point here instead of repeating it):
 *
 * 0. A monitor's state, before everything below: a cron monitor's environment rows (one for a
 *    check-in; the clock's batches skip those another transaction holds) or an uptime monitor's
 *    row, FOR UPDATE. The
 *    check-in store, the cron clock and the uptime check runner lock it first and then record the
 *    failures and recoveries it leads to (MonitorIncidentsService); no transaction that holds a lock
 *    below waits for one of these.
 * 1. `projects`, by id: the numbering lock (FOR NO KEY UPDATE, LOCK_PROJECTS_FOR_NUMBERING), taken
 *    by a digest batch, or a transaction of monitor failures, only when it creates issues, and then
 *    before any issue lock of its own; the rollup fold's FOR KEY SHARE.
 * 2. The digest's per-event advisory locks (pg_advisory_xact_lock, sorted by the hash of project and
 *    event id; EventsRepository.lockEventKeys), so that two copies of an event in flight are stored
 *    once.
 * 3. `events`, then `event_parts`: the digest inserts in that order, and retention's partition drop,
 *    an issue's deletion (cascading) and a merge's moves (EventsRepository.moveToIssue) take them in
 *    the same order. The one step out of this order: a merge moves events and parts after it has
 *    locked its issues (4), so a digest batch that has written a part of the surviving issue and
 *    waits for that issue can deadlock with it. PostgreSQL ends one of the two (40P01); the digest
 *    retries its batch at once, as it does every conflict, and a merge answers 409 to be sent
 *    again. Locking the issues after the moves would let batches attach events to an issue being
 *    merged away, which is worse.
 *    An erasure of a person's data (src/privacy/erasure) deletes their events by key first, then
 *    locks their issues (4) and writes the rollup rows (6) and then the releases' event counts, as
 *    the fold does, after the project's KEY SHARE (1).
 *    Deleting events (an issue's deletion) deletes their `attachments` rows after them, by trigger,
 *    and those put their blobs on `pending_blobs`; ingest takes those two tables in the other order
 *    but only for rows of new files, which no deletion holds.
 * 4. `issues`, by id, FOR NO KEY UPDATE, in a statement of its own: the digest's batch update, a
 *    transaction's monitor failures and recoveries (all its issues at once, sorted: lockForBatch),
 *    the fold, merges, triage and bulk changes, ended snoozes (a deletion locks its one issue FOR
 *    UPDATE). NO KEY UPDATE does not conflict with the KEY SHARE locks that inserting events (and
 *    issues, and rollup rows) takes on an issue or project, so a merge or a bulk change that locks
 *    issues before it touches their events neither waits for every batch nor deadlocks with one.
 * 5. `releases`, in (project, version) order, after the issues: the digest counts new issues, the
 *    fold adds events (ReleasesRepository).
 * 6. Rollup rows: those keyed by an issue are written under that issue's lock; the project rows,
 *    shared between issues, in the delta's sorted order (RollupsRepository, rollup-delta.ts). The
 *    fold writes them before its releases; no transaction that writes releases waits for a rollup
 *    row (the digest only inserts the counts it records for the fold).
 *
 * What is written last under these locks (the activity log, the comments a merge moves, the alert
 * trigger outbox) is not locked by any transaction that then waits for one of the locks above.
 */

/**
 * Serialises issue numbering per project. NO KEY UPDATE is enough for that, and unlike FOR UPDATE it
 * does not conflict with the KEY SHARE locks that inserting events and issues takes on their
 * project: other batches keep storing events of the project meanwhile, and batches of different
 * projects cannot deadlock on them.
 */
export const LOCK_PROJECTS_FOR_NUMBERING =
  'SELECT id FROM projects WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE';

/** A group of the digest's batch with no issue yet, numbered. */
export interface NewIssue {
  projectId: number;
  groupingKey: string;
  number: number;
  type: string;
  message: string;
  culprit: string;
  level: string;
  firstSeen: Date;
  lastSeen: Date;
  firstRelease: string | null;
  lastRelease: string | null;
  /** `error` unless a monitor opens it (see monitor-issue-key.ts). */
  kind?: IssueKind;
}

/** What the digest reads of an issue that receives events, under its row lock (see lifecycleChange). */
export interface IssueLockedForBatch {
  id: number;
  projectId: number;
  state: string;
  eventCount: number;
  resolvedIn: string | null;
  resolvedAbove: string | null;
  muteUntil: Date | null;
  muteUntilCount: number | null;
  mutedEventCount: number | null;
  mergedIntoId: number | null;
  lastSeen: Date;
}

/** What a digest batch adds to one issue; `change`: the lifecycle change it makes, if any. */
export interface IssueBatchUpdate {
  id: number;
  added: number;
  first: Date;
  last: Date;
  lastRelease: string | null;
  change: 'regressed' | 'unmuted' | null;
  /** A monitor's latest failure in words (see monitor-failure-text.ts); events leave the culprit. */
  culprit?: string | null;
}

/** The state columns a user's change (or an ended snooze) sets. */
export interface IssueStateColumns {
  state: IssueState;
  resolvedIn: string | null;
  resolvedAbove: string | null;
  muteUntil: Date | null;
  muteUntilCount: number | null;
  muteUntilUsers: number | null;
}

/** The `issues` rows' writes, and the lookups and locks that go with them (see the lock order above). */
@Injectable()
export class IssuesRepository {
  /** The issues (the survivor, for a merged one) of these grouping keys, where they exist. */
  async findByGroupingKeys(
    manager: EntityManager,
    groups: { projectId: number; key: string }[],
  ): Promise<{ id: number; projectId: number; groupingKey: string }[]> {
    const rows: { id: number; project_id: number; grouping_key: string }[] = await manager.query(
      `SELECT coalesce(i.merged_into_id, i.id) AS id, i.project_id, i.grouping_key
         FROM issues i
         JOIN unnest($1::int[], $2::text[]) AS g(project_id, grouping_key)
           ON i.project_id = g.project_id AND i.grouping_key = g.grouping_key`,
      [groups.map((group) => group.projectId), groups.map((group) => group.key)],
    );
    return rows.map((row) => ({ id: row.id, projectId: row.project_id, groupingKey: row.grouping_key }));
  }

  /** Takes the numbering lock of these projects (sorted by id); returns those that still exist. */
  async lockProjectsForNumbering(manager: EntityManager, projectIds: number[]): Promise<Set<number>> {
    const locked: { id: number }[] = await manager.query(LOCK_PROJECTS_FOR_NUMBERING, [projectIds]);
    return new Set(locked.map((row) => row.id));
  }

  /** Reserves the project's next `count` issue numbers (under its numbering lock); returns the last. */
  async reserveNumbers(manager: EntityManager, projectId: number, count: number): Promise<number> {
    const [{ next_issue_number: last }] = await updateReturning<{ next_issue_number: number }>(
      manager,
      `UPDATE projects SET next_issue_number = next_issue_number + $2 WHERE id = $1 RETURNING next_issue_number`,
      [projectId, count],
    );
    return last;
  }

  /** Inserts open issues with no events counted yet (the batch's update counts them). */
  async insertNew(
    manager: EntityManager,
    issues: NewIssue[],
  ): Promise<{ id: number; projectId: number; number: number }[]> {
    const created: { id: number; project_id: number; number: number }[] = await manager.query(
      `INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state, kind,
                           event_count, first_seen, last_seen, first_release, last_release)
       SELECT g.project_id, g.grouping_key, g.number, g.type, g.message, g.culprit, g.level, 'open',
              coalesce(g.kind, 'error'), 0, g.first_seen, g.last_seen, g.first_release, g.last_release
         FROM unnest($1::int[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[],
                     $8::timestamptz[], $9::timestamptz[], $10::text[], $11::text[], $12::text[])
           AS g(project_id, grouping_key, number, type, message, culprit, level, first_seen, last_seen,
                first_release, last_release, kind)
       RETURNING id, project_id, number`,
      [
        issues.map((issue) => issue.projectId),
        issues.map((issue) => issue.groupingKey),
        issues.map((issue) => issue.number),
        issues.map((issue) => issue.type),
        issues.map((issue) => issue.message),
        issues.map((issue) => issue.culprit),
        issues.map((issue) => issue.level),
        issues.map((issue) => issue.firstSeen),
        issues.map((issue) => issue.lastSeen),
        issues.map((issue) => issue.firstRelease),
        issues.map((issue) => issue.lastRelease),
        issues.map((issue) => issue.kind ?? null),
      ],
    );
    return created.map((row) => ({ id: row.id, projectId: row.project_id, number: row.number }));
  }

  /**
   * The issues a digest batch, or a monitor's failures, add to, locked (`ids` sorted), with what
   * their lifecycle depends on.
   */
  lockForBatch(manager: EntityManager, ids: number[]): Promise<IssueLockedForBatch[]> {
    return manager.query(
      `SELECT id, project_id AS "projectId", state, event_count AS "eventCount", resolved_in AS "resolvedIn",
              resolved_above AS "resolvedAbove", mute_until AS "muteUntil", mute_until_count AS "muteUntilCount",
              muted_event_count AS "mutedEventCount", merged_into_id AS "mergedIntoId",
              last_seen AS "lastSeen"
         FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE`,
      [ids],
    );
  }

  /**
   * Adds a digest batch's events, or a monitor's failures, to their issues (`updates` sorted by id):
   * counts, times, last release, the reopening a lifecycle change makes, and a monitor's culprit
   * when its failure is the latest. Returns when each issue last regressed.
   */
  addBatch(
    manager: EntityManager,
    updates: IssueBatchUpdate[],
  ): Promise<{ id: number; project_id: number; regressed_at: Date | null }[]> {
    return updateReturning(
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
              mute_until_users = CASE WHEN b.change IS NOT NULL THEN NULL ELSE i.mute_until_users END,
              culprit = CASE WHEN b.culprit IS NOT NULL AND b.last_ts >= i.last_seen THEN b.culprit
                             ELSE i.culprit END
         FROM unnest($1::int[], $2::int[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[],
                     $7::text[])
           AS b(id, added, first_ts, last_ts, last_release, change, culprit)
        WHERE i.id = b.id
       RETURNING i.id, i.project_id, i.last_regressed_at AS regressed_at`,
      [
        updates.map((update) => update.id),
        updates.map((update) => update.added),
        updates.map((update) => update.first),
        updates.map((update) => update.last),
        updates.map((update) => update.lastRelease),
        updates.map((update) => update.change),
        updates.map((update) => update.culprit ?? null),
      ],
    );
  }

  /** The issue, unless merged, locked for a user's change. */
  lockUnmerged(manager: EntityManager, id: number): Promise<Issue[]> {
    return this.lock(manager, 'issue.id = :id AND issue.merged_into_id IS NULL', { id });
  }

  /** The project's issues among `ids`, unless merged, locked for a bulk change. */
  lockUnmergedOfProject(manager: EntityManager, ids: number[], projectId: number): Promise<Issue[]> {
    return this.lock(
      manager,
      'issue.id IN (:...ids) AND issue.project_id = :projectId AND issue.merged_into_id IS NULL',
      {
        ids,
        projectId,
      },
    );
  }

  /**
   * The muted issues whose snooze ended without an event to notice it (`mute_until` passed, or
   * enough users affected), locked.
   */
  lockEndedSnoozes(manager: EntityManager, now: Date): Promise<Issue[]> {
    return this.lock(
      manager,
      `issue.state = 'muted' AND issue.merged_into_id IS NULL AND (issue.mute_until IS NOT NULL OR issue.mute_until_users IS NOT NULL)
         AND (issue.mute_until <= :now
              OR issue.user_count - coalesce(issue.muted_user_count, 0) >= issue.mute_until_users)`,
      { now },
    );
  }

  /** Puts the issues on a member or a team (both null: nobody). */
  async assign(
    manager: EntityManager,
    ids: number[],
    userId: number | null,
    teamId: number | null,
  ): Promise<void> {
    await manager.query(
      'UPDATE issues SET assignee_user_id = $2, assignee_team_id = $3 WHERE id = ANY($1::int[])',
      [ids, userId, teamId],
    );
  }

  /** Sets the issues' state; the times and counts it was resolved or muted at come from `now` and the row. */
  async setState(
    manager: EntityManager,
    ids: number[],
    columns: IssueStateColumns,
    now: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE issues SET
         state = $2,
         resolved_at = CASE WHEN $2 = 'resolved' AND state <> 'resolved' THEN $3 ELSE resolved_at END,
         muted_at = CASE WHEN $2 = 'muted' THEN coalesce(CASE WHEN state = 'muted' THEN muted_at END, $3) END,
         resolved_in = $4, resolved_above = $5,
         mute_until = $6, mute_until_count = $7, mute_until_users = $8,
         muted_event_count = CASE WHEN $2 = 'muted' THEN event_count END,
         muted_user_count = CASE WHEN $2 = 'muted' THEN user_count END
       WHERE id = ANY($1::int[])`,
      [
        ids,
        columns.state,
        now,
        columns.resolvedIn,
        columns.resolvedAbove,
        columns.muteUntil,
        columns.muteUntilCount,
        columns.muteUntilUsers,
      ],
    );
  }

  /** Locked in id order, FOR NO KEY UPDATE (see the lock order above). */
  private lock(manager: EntityManager, where: string, parameters: ObjectLiteral): Promise<Issue[]> {
    return manager
      .createQueryBuilder(Issue, 'issue')
      .where(where, parameters)
      .orderBy('issue.id')
      .setLock('for_no_key_update')
      .getMany();
  }
}

/** TypeORM answers an UPDATE … RETURNING with `[rows, affectedCount]`, unlike SELECT and INSERT. */
async function updateReturning<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  const [rows] = (await manager.query(sql, parameters)) as [T[], number];
  return rows;
}
