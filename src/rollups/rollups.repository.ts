import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { RowDeletion } from '../events/event-partitions';
import { deleteProjectHours } from '../database/project-hours-deletion';
import { ReleasesRepository } from '../releases/releases.repository';
import { CountedEvent, foldPending, pendingDeltas, readPendingDelta, RollupDelta } from './rollup-delta';
import type { EnvironmentRow, TagKeySummary, ProjectTagKey, TagValueRow } from './dto/rollups.response';

export type { EnvironmentRow, TagKeySummary, ProjectTagKey, TagValueRow };

/**
 * Adds a batch's counts to the rollups, inside the transaction that stored the batch's events, so a
 * retried batch (which stores nothing new) adds nothing either.
 *
 * Rows keyed by an issue are written under that issue's row lock, the project rows in the delta's
 * sorted order (the lock order is in issues.repository.ts).
 *
 * A tag value row that did not exist before (`xmax = 0` on the returned row: inserted, not updated)
 * adds one to its key's distinct count; the `user` key's distinct count is the issue's user count.
 *
 * That count is the one write of the `issues` row outside IssuesRepository, on purpose: it is the
 * tail of this one statement. Written by IssuesRepository, it would be a statement of its own, one
 * more round trip while the fold holds the row locks of issues the digest's batches wait for, and
 * the fold's transaction would have to be run from above the issues layer, where neither the
 * RollupFolder of the digest workers nor the migration that backfills the rollups run it.
 */
const WRITE_ROLLUPS = `
  WITH issue_hours AS (
    INSERT INTO issue_hourly AS r (issue_id, hour, environment, count)
    SELECT * FROM unnest($1::int[], $2::timestamptz[], $3::text[], $4::int[])
    ON CONFLICT (issue_id, hour, environment) DO UPDATE SET count = r.count + EXCLUDED.count
  ), project_hours AS (
    INSERT INTO project_hourly AS r (project_id, hour, environment, count)
    SELECT * FROM unnest($5::int[], $6::timestamptz[], $7::text[], $8::int[])
    ON CONFLICT (project_id, hour, environment) DO UPDATE SET count = r.count + EXCLUDED.count
  ), tag_values AS (
    INSERT INTO issue_tag_values AS r (issue_id, key, value, count, first_seen, last_seen)
    SELECT * FROM unnest($9::int[], $10::text[], $11::text[], $12::int[], $13::timestamptz[], $14::timestamptz[])
    ON CONFLICT (issue_id, key, value) DO UPDATE
       SET count = r.count + EXCLUDED.count,
           first_seen = LEAST(r.first_seen, EXCLUDED.first_seen),
           last_seen = GREATEST(r.last_seen, EXCLUDED.last_seen)
    RETURNING r.issue_id, r.key, (r.xmax = 0) AS created
  ), tag_keys AS (
    INSERT INTO issue_tag_keys AS r (issue_id, key, total, distinct_values)
    SELECT k.issue_id, k.key, k.total, coalesce(n.created, 0)
      FROM unnest($15::int[], $16::text[], $17::int[]) WITH ORDINALITY AS k(issue_id, key, total, position)
      LEFT JOIN (SELECT issue_id, key, (count(*) FILTER (WHERE created))::int AS created
                   FROM tag_values GROUP BY issue_id, key) n USING (issue_id, key)
     ORDER BY k.position
    ON CONFLICT (issue_id, key) DO UPDATE
       SET total = r.total + EXCLUDED.total, distinct_values = r.distinct_values + EXCLUDED.distinct_values
    RETURNING r.issue_id, r.key, r.distinct_values
  )
  UPDATE issues i SET user_count = tag_keys.distinct_values
    FROM tag_keys
   WHERE tag_keys.key = 'user' AND i.id = tag_keys.issue_id AND i.user_count <> tag_keys.distinct_values`;

export interface BucketCount {
  start: Date;
  count: number;
}

/**
 * Position in a tag's values, sorted by count descending, then value. Queries sort by `count_bucket`
 * first, which orders the same (it grows with the count) and lets them walk the index on it (see
 * migration HotTagCounts).
 */
export interface TagValueKey {
  count: number;
  value: string;
}

/** The rollup tables: what the digest adds to them, what the API reads, what retention removes. */
@Injectable()
export class RollupsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly releases: ReleasesRepository,
  ) {}

  /**
   * Records a batch's counts, in the transaction that stores its events, for a later fold to add:
   * one row per issue, where adding them at once would update a row per tag value, tag key and
   * hour of every issue of the batch.
   */
  async record(manager: EntityManager, events: CountedEvent[]): Promise<void> {
    const byIssue = pendingDeltas(events);
    if (byIssue.size === 0) return;
    const issueIds = [...byIssue.keys()].sort((a, b) => a - b);
    // One JSON document: no array-literal escaping of every delta by node-pg.
    await manager.query(
      `INSERT INTO rollup_pending (issue_id, delta)
       SELECT r.issue_id, r.delta FROM jsonb_to_recordset($1::jsonb) AS r(issue_id int, delta jsonb)`,
      [JSON.stringify(issueIds.map((issueId) => ({ issue_id: issueId, delta: byIssue.get(issueId) })))],
    );
  }

  /**
   * Adds up to `limit` recorded deltas (oldest first; of one issue when `issueId` is given) to the
   * rollups and deletes them, in one transaction: each is added exactly once, whoever folds.
   * Returns how many were folded.
   *
   * Locks are taken in the order of issues.repository.ts: the projects (KEY SHARE, which only a
   * project's deletion waits for), the issues (so that a digest batch and a fold of the same issue
   * take turns, and an issue being deleted, which first takes its counts out of its project's,
   * either waits for the fold or finds its recorded rows gone with it), the recorded rows, the
   * rollup rows, the releases.
   */
  async fold(limit: number, issueId?: number): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const candidates: { issue_id: number }[] = await manager.query(
        `SELECT DISTINCT issue_id FROM (
           SELECT issue_id FROM rollup_pending
            WHERE failed_at IS NULL AND ($2::int IS NULL OR issue_id = $2) ORDER BY id LIMIT $1) oldest`,
        [limit, issueId ?? null],
      );
      if (candidates.length === 0) return 0;
      return this.foldIssues(
        manager,
        candidates.map((row) => row.issue_id),
        limit,
      );
    });
  }

  /**
   * Folds up to `limit` recorded deltas of these issues in the caller's transaction (see fold for
   * the locks); returns how many. An erasure folds its issues' deltas this way before it subtracts.
   */
  async foldIssues(manager: EntityManager, issueIds: number[], limit: number): Promise<number> {
    await manager.query(
      `SELECT id FROM projects WHERE id IN (SELECT project_id FROM issues WHERE id = ANY($1::int[]))
        ORDER BY id FOR KEY SHARE`,
      [issueIds],
    );
    const issues: { id: number; project_id: number }[] = await manager.query(
      'SELECT id, project_id FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE',
      [issueIds],
    );
    const projectOf = new Map(issues.map((row) => [row.id, row.project_id]));
    const [taken]: [{ issue_id: number; delta: unknown }[], number] = await manager.query(
      `DELETE FROM rollup_pending WHERE id IN (
         SELECT id FROM rollup_pending WHERE issue_id = ANY($1::int[]) AND failed_at IS NULL
          ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING issue_id, delta`,
      [issues.map((row) => row.id), limit],
    );
    if (taken.length === 0) return 0;
    const delta = foldPending(
      taken.map((row) => ({
        issueId: row.issue_id,
        projectId: projectOf.get(row.issue_id) as number,
        delta: readPendingDelta(row.delta),
      })),
    );
    await this.add(manager, delta);
    await this.addAccepted(manager, delta);
    // After the issues' rollups (the lock order is in issues.repository.ts).
    await this.releases.addEvents(manager, delta.releases);
    return taken.length;
  }

  /**
   * Adds the events accepted per project and hour of receipt, after the project's hourly rows (in
   * the delta's sorted order). Only a fold adds to them, and nothing takes from them but
   * retention: an erasure or an issue's deletion leaves what ingest accepted in the past as it was.
   */
  private async addAccepted(manager: EntityManager, delta: RollupDelta): Promise<void> {
    if (delta.accepted.length === 0) return;
    await manager.query(
      `INSERT INTO project_accepted_hourly AS r (project_id, hour, count)
       SELECT * FROM unnest($1::int[], $2::timestamptz[], $3::int[])
       ON CONFLICT (project_id, hour) DO UPDATE SET count = r.count + EXCLUDED.count`,
      [
        delta.accepted.map((row) => row.projectId),
        delta.accepted.map((row) => row.hour),
        delta.accepted.map((row) => row.count),
      ],
    );
  }

  /** Events a project accepted per bucket of the window, by hour of receipt (see addAccepted). */
  async acceptedCounts(
    projectId: number,
    window: { from: Date; to: Date; bucketHours: number },
  ): Promise<BucketCount[]> {
    const rows = await this.dataSource.query<Array<{ start: Date; count: number }>>(
      `SELECT date_bin(make_interval(hours => $4), hour, $2) AS start, sum(count)::float8 AS count
         FROM project_accepted_hourly
        WHERE project_id = $1 AND hour >= $2 AND hour < $3
        GROUP BY 1`,
      [projectId, window.from, window.to, window.bucketHours],
    );
    return rows.map((row) => ({ start: new Date(row.start), count: Number(row.count) }));
  }

  /**
   * Takes erased events' counts (a delta of rollupDelta, of events whose own deltas are folded)
   * out of the rollups, in the caller's transaction, under the issues' locks: hours and tag values
   * down by their counts, tag values left at zero deleted and their keys' distinct counts down by
   * them, keys left at zero deleted. The project's hourly rows are locked in the delta's sorted
   * order (see the lock order in issues.repository.ts). Returns the rows changed or deleted.
   */
  async subtract(manager: EntityManager, delta: RollupDelta): Promise<number> {
    if (delta.issueHours.length === 0 && delta.tagValues.length === 0) return 0;
    const hours = (rows: RollupDelta['issueHours']) => [
      rows.map((row) => row.id),
      rows.map((row) => row.hour),
      rows.map((row) => row.environment),
      rows.map((row) => row.count),
    ];
    const [, issueHours] = (await manager.query(
      `UPDATE issue_hourly h SET count = h.count - d.count
         FROM unnest($1::int[], $2::timestamptz[], $3::text[], $4::int[]) AS d(issue_id, hour, environment, count)
        WHERE h.issue_id = d.issue_id AND h.hour = d.hour AND h.environment = d.environment`,
      hours(delta.issueHours),
    )) as [unknown, number];
    const [, projectHours] = (await manager.query(
      `WITH d AS (SELECT * FROM unnest($1::int[], $2::timestamptz[], $3::text[], $4::int[])
                    AS d(project_id, hour, environment, count)),
       locked AS (
         SELECT p.project_id, p.hour, p.environment FROM project_hourly p JOIN d USING (project_id, hour, environment)
          ORDER BY p.project_id, p.hour, p.environment COLLATE "C" FOR NO KEY UPDATE OF p)
       UPDATE project_hourly p SET count = p.count - d.count FROM d, locked
        WHERE p.project_id = d.project_id AND p.hour = d.hour AND p.environment = d.environment
          AND locked.project_id = p.project_id AND locked.hour = p.hour AND locked.environment = p.environment`,
      hours(delta.projectHours),
    )) as [unknown, number];
    const [, hoursDeleted] = (await manager.query(
      'DELETE FROM issue_hourly WHERE issue_id = ANY($1::int[]) AND count <= 0',
      [[...new Set(delta.issueHours.map((row) => row.id))]],
    )) as [unknown, number];
    const [, tagValues] = (await manager.query(
      `UPDATE issue_tag_values v SET count = v.count - d.count
         FROM unnest($1::int[], $2::text[], $3::text[], $4::int[]) AS d(issue_id, key, value, count)
        WHERE v.issue_id = d.issue_id AND v.key = d.key AND v.value = d.value`,
      [
        delta.tagValues.map((row) => row.issueId),
        delta.tagValues.map((row) => row.key),
        delta.tagValues.map((row) => row.value),
        delta.tagValues.map((row) => row.count),
      ],
    )) as [unknown, number];
    const [gone] = (await manager.query(
      `DELETE FROM issue_tag_values WHERE issue_id = ANY($1::int[]) AND count <= 0 RETURNING issue_id, key`,
      [[...new Set(delta.tagValues.map((row) => row.issueId))]],
    )) as [{ issue_id: number; key: string }[], number];
    const goneByKey = new Map<string, { issueId: number; key: string; n: number }>();
    for (const row of gone) {
      const id = `${row.issue_id}\0${row.key}`;
      const entry = goneByKey.get(id) ?? { issueId: row.issue_id, key: row.key, n: 0 };
      entry.n++;
      goneByKey.set(id, entry);
    }
    const distinct = new Map([...goneByKey.values()].map((row) => [`${row.issueId}\0${row.key}`, row.n]));
    const [, tagKeys] = (await manager.query(
      `UPDATE issue_tag_keys k SET total = k.total - d.total, distinct_values = k.distinct_values - d.gone
         FROM unnest($1::int[], $2::text[], $3::int[], $4::int[]) AS d(issue_id, key, total, gone)
        WHERE k.issue_id = d.issue_id AND k.key = d.key`,
      [
        delta.tagKeys.map((row) => row.issueId),
        delta.tagKeys.map((row) => row.key),
        delta.tagKeys.map((row) => row.total),
        delta.tagKeys.map((row) => distinct.get(`${row.issueId}\0${row.key}`) ?? 0),
      ],
    )) as [unknown, number];
    const [, keysDeleted] = (await manager.query(
      'DELETE FROM issue_tag_keys WHERE issue_id = ANY($1::int[]) AND total <= 0',
      [[...new Set(delta.tagKeys.map((row) => row.issueId))]],
    )) as [unknown, number];
    await manager.query('DELETE FROM project_hourly WHERE project_id = ANY($1::int[]) AND count <= 0', [
      [...new Set(delta.projectHours.map((row) => row.id))],
    ]);
    return issueHours + projectHours + hoursDeleted + tagValues + tagKeys + keysDeleted;
  }

  /** A project's environments from its hourly counts: events, first and last hour with events. */
  async environments(projectId: number): Promise<EnvironmentRow[]> {
    const rows: { name: string; event_count: number; first_seen: Date; last_seen: Date }[] =
      await this.dataSource.query(
        `SELECT environment AS name, sum(count)::float8 AS event_count, min(hour) AS first_seen,
                max(hour) + interval '1 hour' AS last_seen
           FROM project_hourly WHERE project_id = $1 AND environment <> ''
          GROUP BY environment ORDER BY sum(count) DESC, environment`,
        [projectId],
      );
    return rows.map((row) => ({
      name: row.name,
      event_count: Number(row.event_count),
      first_seen: row.first_seen.toISOString(),
      last_seen: row.last_seen.toISOString(),
    }));
  }

  /** Issues with recorded counts waiting, oldest first: where a fold that failed looks for the culprit. */
  async waitingIssues(limit: number): Promise<number[]> {
    const rows: { issue_id: number }[] = await this.dataSource.query(
      `SELECT issue_id FROM rollup_pending WHERE failed_at IS NULL
        GROUP BY issue_id ORDER BY min(id) LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.issue_id);
  }

  /** Sets an issue's recorded rows aside (kept, not folded again) so that they stop holding back the others. */
  async setAside(issueId: number, error: string): Promise<number> {
    const [, count] = (await this.dataSource.query(
      `UPDATE rollup_pending SET failed_at = now(), error = $2 WHERE issue_id = $1 AND failed_at IS NULL`,
      [issueId, error.slice(0, 1_000)],
    )) as [unknown, number];
    return count;
  }

  /** Adds counts to the rollups, in the caller's transaction. */
  async add(manager: EntityManager, delta: RollupDelta): Promise<void> {
    if (delta.issueHours.length === 0) return;
    const { issueHours, projectHours, tagValues, tagKeys } = delta;
    await manager.query(WRITE_ROLLUPS, [
      issueHours.map((row) => row.id),
      issueHours.map((row) => row.hour),
      issueHours.map((row) => row.environment),
      issueHours.map((row) => row.count),
      projectHours.map((row) => row.id),
      projectHours.map((row) => row.hour),
      projectHours.map((row) => row.environment),
      projectHours.map((row) => row.count),
      tagValues.map((row) => row.issueId),
      tagValues.map((row) => row.key),
      tagValues.map((row) => row.value),
      tagValues.map((row) => row.count),
      tagValues.map((row) => row.firstSeen),
      tagValues.map((row) => row.lastSeen),
      tagKeys.map((row) => row.issueId),
      tagKeys.map((row) => row.key),
      tagKeys.map((row) => row.total),
    ]);
  }

  /** Event counts of an issue or a project per bucket of the window, of one environment or all. */
  async counts(
    scope: 'issue' | 'project',
    id: number,
    window: { from: Date; to: Date; bucketHours: number },
    environment: string | undefined,
  ): Promise<BucketCount[]> {
    const [table, column] =
      scope === 'issue' ? ['issue_hourly', 'issue_id'] : ['project_hourly', 'project_id'];
    const rows = await this.dataSource.query<Array<{ start: Date; count: number }>>(
      `SELECT date_bin(make_interval(hours => $4), hour, $2) AS start, sum(count)::int AS count
         FROM ${table}
        WHERE ${column} = $1 AND hour >= $2 AND hour < $3 AND ($5::text IS NULL OR environment = $5)
        GROUP BY 1`,
      [id, window.from, window.to, window.bucketHours, environment ?? null],
    );
    return rows.map((row) => ({ start: new Date(row.start), count: row.count }));
  }

  /** Hourly event counts of several issues over a window, by issue (of one environment or all). */
  async countsOfIssues(
    issueIds: number[],
    window: { from: Date; to: Date },
    environment: string | undefined,
  ): Promise<Map<number, BucketCount[]>> {
    const rows = await this.dataSource.query<Array<{ issue_id: number; hour: Date; count: number }>>(
      `SELECT issue_id, hour, sum(count)::int AS count
         FROM issue_hourly
        WHERE issue_id = ANY($1::int[]) AND hour >= $2 AND hour < $3 AND ($4::text IS NULL OR environment = $4)
        GROUP BY issue_id, hour`,
      [issueIds, window.from, window.to, environment ?? null],
    );
    const byIssue = new Map<number, BucketCount[]>();
    for (const row of rows) {
      const list = byIssue.get(row.issue_id) ?? [];
      list.push({ start: new Date(row.hour), count: row.count });
      byIssue.set(row.issue_id, list);
    }
    return byIssue;
  }

  /**
   * A merge: the `from` issues' rollups are added to issue `to`'s and removed, its tag keys
   * recomputed from the merged values (its user count follows them: IssuesRepository), and counts
   * still waiting to be folded are re-addressed to it. The project's counts do not change. The
   * caller holds the issues' row locks (see the lock order in issues.repository.ts).
   */
  async mergeIssues(manager: EntityManager, from: number[], to: number): Promise<void> {
    await manager.query(
      `INSERT INTO issue_hourly AS r (issue_id, hour, environment, count)
       SELECT $2, hour, environment, sum(count) FROM issue_hourly WHERE issue_id = ANY($1::int[])
        GROUP BY hour, environment ORDER BY hour, environment
       ON CONFLICT (issue_id, hour, environment) DO UPDATE SET count = r.count + EXCLUDED.count`,
      [from, to],
    );
    await manager.query('DELETE FROM issue_hourly WHERE issue_id = ANY($1::int[])', [from]);
    await manager.query(
      `INSERT INTO issue_tag_values AS r (issue_id, key, value, count, first_seen, last_seen)
       SELECT $2, key, value, sum(count), min(first_seen), max(last_seen)
         FROM issue_tag_values WHERE issue_id = ANY($1::int[])
        GROUP BY key, value ORDER BY key, value
       ON CONFLICT (issue_id, key, value) DO UPDATE
          SET count = r.count + EXCLUDED.count,
              first_seen = LEAST(r.first_seen, EXCLUDED.first_seen),
              last_seen = GREATEST(r.last_seen, EXCLUDED.last_seen)`,
      [from, to],
    );
    await manager.query('DELETE FROM issue_tag_values WHERE issue_id = ANY($1::int[])', [from]);
    await manager.query('DELETE FROM issue_tag_keys WHERE issue_id = ANY($1::int[]) OR issue_id = $2', [
      from,
      to,
    ]);
    await manager.query(
      `INSERT INTO issue_tag_keys (issue_id, key, total, distinct_values)
       SELECT $1, key, sum(count), count(*) FROM issue_tag_values WHERE issue_id = $1 GROUP BY key ORDER BY key`,
      [to],
    );
    await manager.query('UPDATE rollup_pending SET issue_id = $2 WHERE issue_id = ANY($1::int[])', [
      from,
      to,
    ]);
  }

  /**
   * Takes an issue's events out of its project's hourly counts, before the issue is deleted (its own
   * rollups go with it), so the project's counts stay those of the events it still has. The caller
   * holds the issue's row lock (see the lock order in issues.repository.ts).
   */
  async subtractIssueFromProject(manager: EntityManager, issueId: number): Promise<void> {
    await manager.query(
      `WITH issue_hours AS (
         SELECT i.project_id, h.hour, h.environment, h.count
           FROM issue_hourly h JOIN issues i ON i.id = h.issue_id
          WHERE h.issue_id = $1
       ), locked AS (
         SELECT p.project_id, p.hour, p.environment
           FROM project_hourly p JOIN issue_hours USING (project_id, hour, environment)
          ORDER BY p.project_id, p.hour, p.environment COLLATE "C"
            FOR NO KEY UPDATE OF p
       )
       UPDATE project_hourly p SET count = p.count - issue_hours.count
         FROM issue_hours, locked
        WHERE p.project_id = issue_hours.project_id AND p.hour = issue_hours.hour
          AND p.environment = issue_hours.environment
          AND locked.project_id = p.project_id AND locked.hour = p.hour AND locked.environment = p.environment`,
      [issueId],
    );
  }

  /**
   * Deletes up to `limit` hourly rows (of issues, then of projects) older than the deletion's cutoff,
   * of the projects it covers; returns how many went.
   */
  async deleteHours(deletion: RowDeletion, limit: number): Promise<number> {
    const parameters = [deletion.before, deletion.only ?? null, deletion.except ?? null, limit];
    const [, issueRows] = (await this.dataSource.query(
      `DELETE FROM issue_hourly WHERE ctid = ANY(ARRAY(
         SELECT h.ctid FROM issue_hourly h JOIN issues i ON i.id = h.issue_id
          WHERE h.hour < $1
            AND ($2::int[] IS NULL OR i.project_id = ANY($2))
            AND ($3::int[] IS NULL OR i.project_id <> ALL($3))
          LIMIT $4))`,
      parameters,
    )) as [unknown, number];
    const projectRows = await deleteProjectHours(this.dataSource, 'project_hourly', deletion, limit);
    const acceptedRows = await deleteProjectHours(
      this.dataSource,
      'project_accepted_hourly',
      deletion,
      limit,
    );
    return issueRows + projectRows + acceptedRows;
  }
}
