import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, ObjectLiteral } from 'typeorm';
import type { RowDeletion } from '../events/event-partitions';
import { Issue, IssueState } from './issue.entity';

/*
 * Every write to the `issues` row is here: the digest's (attaching events to issues, creating and
 * numbering issues, adding a batch's counts and lifecycle), triage (state, assignee, ended snoozes),
 * merging, deleting, retention, and the user count of a merge; monitor issues' own statements are
 * beside it in monitor-issues.repository.ts. The one exception is the rollup
 * fold's user count, the tail of the statement that writes the tag keys (see WRITE_ROLLUPS in
 * rollups.repository.ts for why).
 *
 * LOCK ORDER. Every transaction that takes several of these locks takes them in this order, so that
 * concurrent transactions wait for each other instead of deadlocking (docs/architecture.md links
 * here; the comments elsewhere point here instead of repeating it):
 *
 * 1. `projects`, by id: the digest's numbering lock (FOR NO KEY UPDATE, only when a batch creates
 *    issues: LOCK_PROJECTS_FOR_NUMBERING), the rollup fold's FOR KEY SHARE.
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
 * 4. `issues`, by id, FOR NO KEY UPDATE, in a statement of its own: the digest's batch update, the
 *    fold, merges, triage and bulk changes, ended snoozes (a deletion locks its one issue FOR
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
}

/** What a digest batch adds to one issue; `change`: the lifecycle change it makes, if any. */
export interface IssueBatchUpdate {
  id: number;
  added: number;
  first: Date;
  last: Date;
  lastRelease: string | null;
  change: 'regressed' | 'unmuted' | null;
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
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
      ],
    );
    return created.map((row) => ({ id: row.id, projectId: row.project_id, number: row.number }));
  }

  /** The issues a digest batch adds to, locked (`ids` sorted), with what their lifecycle depends on. */
  lockForBatch(manager: EntityManager, ids: number[]): Promise<IssueLockedForBatch[]> {
    return manager.query(
      `SELECT id, project_id AS "projectId", state, event_count AS "eventCount", resolved_in AS "resolvedIn",
              resolved_above AS "resolvedAbove", mute_until AS "muteUntil", mute_until_count AS "muteUntilCount",
              muted_event_count AS "mutedEventCount", merged_into_id AS "mergedIntoId"
         FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE`,
      [ids],
    );
  }

  /**
   * Adds a digest batch's events to their issues (`updates` sorted by id): counts, times, last
   * release, and the reopening a lifecycle change makes. Returns when each issue last regressed.
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
              mute_until_users = CASE WHEN b.change IS NOT NULL THEN NULL ELSE i.mute_until_users END
         FROM unnest($1::int[], $2::int[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[])
           AS b(id, added, first_ts, last_ts, last_release, change)
        WHERE i.id = b.id
       RETURNING i.id, i.project_id, i.last_regressed_at AS regressed_at`,
      [
        updates.map((update) => update.id),
        updates.map((update) => update.added),
        updates.map((update) => update.first),
        updates.map((update) => update.last),
        updates.map((update) => update.lastRelease),
        updates.map((update) => update.change),
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

  /** Every issue of a merge (`ids` sorted), locked. */
  async lockForMerge(
    manager: EntityManager,
    ids: number[],
  ): Promise<{ id: number; projectId: number; mergedIntoId: number | null }[]> {
    const locked: { id: number; project_id: number; merged_into_id: number | null }[] = await manager.query(
      'SELECT id, project_id, merged_into_id FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE',
      [ids],
    );
    return locked.map((row) => ({ id: row.id, projectId: row.project_id, mergedIntoId: row.merged_into_id }));
  }

  /** Adds the `from` issues' counts, times and releases to issue `to`'s. */
  async foldCountsInto(manager: EntityManager, from: number[], to: number): Promise<void> {
    await manager.query(
      `UPDATE issues t
          SET event_count = t.event_count + s.events,
              first_release = CASE WHEN s.first_seen < t.first_seen THEN coalesce(s.first_release, t.first_release)
                                   ELSE t.first_release END,
              last_release = CASE WHEN s.last_seen > t.last_seen THEN coalesce(s.last_release, t.last_release)
                                  ELSE t.last_release END,
              first_seen = LEAST(t.first_seen, s.first_seen),
              last_seen = GREATEST(t.last_seen, s.last_seen)
         FROM (SELECT sum(event_count)::int AS events, min(first_seen) AS first_seen, max(last_seen) AS last_seen,
                      (array_agg(first_release ORDER BY first_seen))[1] AS first_release,
                      (array_agg(last_release ORDER BY last_seen DESC))[1] AS last_release
                 FROM issues WHERE id = ANY($1::int[])) s
        WHERE t.id = $2`,
      [from, to],
    );
  }

  /**
   * Recomputes issue `to`'s user count from its rollups' `user` tag key, once a merge has merged
   * the tag values of the issues it took in.
   */
  async recountUsersFromTags(manager: EntityManager, to: number): Promise<void> {
    await manager.query(
      `UPDATE issues SET user_count = coalesce(
         (SELECT distinct_values FROM issue_tag_keys WHERE issue_id = $1 AND key = 'user'), 0)
        WHERE id = $1`,
      [to],
    );
  }

  /** The `from` issues, and the pointers to them, now point to `to`: one hop, always. */
  async pointTo(manager: EntityManager, from: number[], to: number): Promise<void> {
    await manager.query(
      `UPDATE issues SET merged_into_id = $2, event_count = 0, user_count = 0
        WHERE id = ANY($1::int[]) OR merged_into_id = ANY($1::int[])`,
      [from, to],
    );
  }

  /** Locks the issue to delete it; false when it does not exist. */
  async lockForDeletion(manager: EntityManager, id: number): Promise<boolean> {
    const locked: unknown[] = await manager.query('SELECT id FROM issues WHERE id = $1 FOR UPDATE', [id]);
    return locked.length > 0;
  }

  /** Its events and rollups go with it (foreign keys). */
  async delete(manager: EntityManager, id: number): Promise<void> {
    await manager.query('DELETE FROM issues WHERE id = $1', [id]);
  }

  /**
   * Deletes up to `limit` issues whose last event is older than the deletion's cutoff and none of
   * whose events is left (retention took them), of the projects it covers; returns how many went.
   * Their rollups go with them (foreign keys).
   */
  async deleteExpired(deletion: RowDeletion, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM issues WHERE id = ANY(ARRAY(
         SELECT i.id FROM issues i
          WHERE i.last_seen < $1
            AND i.merged_into_id IS NULL
            AND ($2::int[] IS NULL OR i.project_id = ANY($2))
            AND ($3::int[] IS NULL OR i.project_id <> ALL($3))
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id)
          ORDER BY i.id
          LIMIT $4))`,
      [deletion.before, deletion.only ?? null, deletion.except ?? null, limit],
    )) as [unknown, number];
    return deleted;
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

  /** The ids of a project's issues, merged ones included, in id order. */
  async idsOfProject(projectId: number): Promise<number[]> {
    const rows: { id: number }[] = await this.dataSource.query(
      'SELECT id FROM issues WHERE project_id = $1 ORDER BY id',
      [projectId],
    );
    return rows.map((row) => row.id);
  }

  /** The issues an erasure takes events from (`ids` sorted), locked like a digest batch's. */
  async lockForErasure(manager: EntityManager, ids: number[]): Promise<number[]> {
    const rows: { id: number }[] = await manager.query(
      'SELECT id FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE',
      [ids],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Takes erased events out of their issues' counts (under their locks, after their rollups):
   * event count down by theirs, user count from the `user` tag key, and the first or last seen
   * time moved to the remaining events' when an erased event was at that edge.
   */
  async subtractErased(
    manager: EntityManager,
    removed: Array<{ id: number; count: number; first: Date; last: Date }>,
  ): Promise<void> {
    await manager.query(
      `UPDATE issues i
          SET event_count = GREATEST(i.event_count - r.count, 0),
              user_count = coalesce((SELECT distinct_values FROM issue_tag_keys k
                                      WHERE k.issue_id = i.id AND k.key = 'user'), 0),
              first_seen = CASE WHEN r.first_ts <= i.first_seen
                                THEN coalesce((SELECT min(e.timestamp) FROM events e WHERE e.issue_id = i.id), i.first_seen)
                                ELSE i.first_seen END,
              last_seen = CASE WHEN r.last_ts >= i.last_seen
                               THEN coalesce((SELECT max(e.timestamp) FROM events e WHERE e.issue_id = i.id), i.last_seen)
                               ELSE i.last_seen END
         FROM unnest($1::int[], $2::int[], $3::timestamptz[], $4::timestamptz[]) AS r(id, count, first_ts, last_ts)
        WHERE i.id = r.id`,
      [
        removed.map((row) => row.id),
        removed.map((row) => row.count),
        removed.map((row) => row.first),
        removed.map((row) => row.last),
      ],
    );
  }

  /** Of these issues, those with no event left. */
  async withoutEvents(manager: EntityManager, ids: number[]): Promise<number[]> {
    const rows: { id: number }[] = await manager.query(
      `SELECT i.id FROM issues i WHERE i.id = ANY($1::int[])
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id) ORDER BY i.id`,
      [ids],
    );
    return rows.map((row) => row.id);
  }
}

/** TypeORM answers an UPDATE … RETURNING with `[rows, affectedCount]`, unlike SELECT and INSERT. */
async function updateReturning<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  const [rows] = (await manager.query(sql, parameters)) as [T[], number];
  return rows;
}
