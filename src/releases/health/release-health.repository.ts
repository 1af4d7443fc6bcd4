import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { deleteProjectHours, HourlyRowsDeletion } from '../../database/project-hours-deletion';
import { BucketCounts, hourStart, UserClass } from './session-keys';

/**
 * Records the batch and adds its counts, its users and the releases it names in one statement:
 * when the batch id is already recorded (a fold that committed, then died before cleaning up
 * Redis), `recorded` is empty and nothing is added. A second fold of one batch waits for the
 * first's commit on the batch id, then adds nothing. Counts of a project deleted since are dropped
 * with it. Rows are written in key order so that concurrent folds do not deadlock; the releases
 * are only made when missing (no lock on a row that exists, so the digest's updates of it do not
 * wait on a fold).
 */
const FOLD_BATCH = `
  WITH recorded AS (
    INSERT INTO release_health_folds (batch_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING batch_id
  ), counted AS (
    INSERT INTO release_health_hourly AS h (project_id, hour, environment, release, sessions, errored, abnormal, crashed)
    SELECT c.project_id, c.hour, c.environment, c.release, sum(c.s), sum(c.e), sum(c.a), sum(c.c)
      FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])
           AS c(project_id, hour, environment, release, s, e, a, c)
      JOIN projects p ON p.id = c.project_id
     WHERE EXISTS (SELECT 1 FROM recorded)
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (project_id, hour, environment, release) DO UPDATE
       SET sessions = h.sessions + EXCLUDED.sessions, errored = h.errored + EXCLUDED.errored,
           abnormal = h.abnormal + EXCLUDED.abnormal, crashed = h.crashed + EXCLUDED.crashed
    RETURNING 1
  ), users AS (
    INSERT INTO release_health_users AS u (project_id, hour, environment, release, user_hash, worst)
    SELECT c.project_id, c.hour, c.environment, c.release, c.user_hash, max(c.worst)
      FROM unnest($10::int[], $11::timestamptz[], $12::text[], $13::text[], $14::uuid[], $15::smallint[])
           AS c(project_id, hour, environment, release, user_hash, worst)
      JOIN projects p ON p.id = c.project_id
     WHERE EXISTS (SELECT 1 FROM recorded)
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, hour, environment, release, user_hash) DO UPDATE
       SET worst = GREATEST(u.worst, EXCLUDED.worst)
     WHERE u.worst < EXCLUDED.worst
    RETURNING 1
  ), made AS (
    INSERT INTO releases (project_id, version)
    SELECT DISTINCT c.project_id, c.release
      FROM unnest($2::int[], $5::text[]) AS c(project_id, release)
      JOIN projects p ON p.id = c.project_id
     WHERE EXISTS (SELECT 1 FROM recorded)
     ORDER BY 1, 2
    ON CONFLICT DO NOTHING
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM recorded)::int AS recorded, (SELECT count(*) FROM counted)::int AS counted,
         (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM made)::int AS made`;

export interface FoldWrite {
  /** False: the batch was folded before, nothing was added. */
  recorded: boolean;
  /** Rows inserted or updated. */
  rows: number;
}

/** Counts per release (or per bucket) and environment, as the figures read them. */
export interface HealthCountRow {
  key: string;
  sessions: number;
  errored: number;
  abnormal: number;
  crashed: number;
  users: number;
  crashed_users: number;
}

export interface HealthFilter {
  projectId: number;
  from: Date;
  to: Date;
  /** null: every environment. */
  environment: string | null;
  /** null: every release. */
  releases: string[] | null;
}

const COUNT_COLUMNS = `coalesce(sum(sessions), 0)::float8 AS sessions, coalesce(sum(errored), 0)::float8 AS errored,
  coalesce(sum(abnormal), 0)::float8 AS abnormal, coalesce(sum(crashed), 0)::float8 AS crashed`;
const FILTER = `project_id = $1 AND hour >= $2 AND hour < $3 AND ($4::text IS NULL OR environment = $4)
  AND ($5::text[] IS NULL OR release = ANY($5))`;
/** Crashed is class 4 (session-items.ts SessionClass). */
const USER_COLUMNS = `count(DISTINCT user_hash)::float8 AS users,
  count(DISTINCT user_hash) FILTER (WHERE worst = 4)::float8 AS crashed_users`;

/** The release health tables: what the fold adds, what the API reads, what retention removes. */
@Injectable()
export class ReleaseHealthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The installation's key for hashing distinct ids (made by the migration). */
  async userHashKey(): Promise<Buffer> {
    const rows: { key: Buffer }[] = await this.dataSource.query(
      'SELECT key FROM release_health_key WHERE id = 1',
    );
    if (rows.length === 0) throw new Error('release_health_key has no key');
    return rows[0].key;
  }

  async foldBatch(batchId: string, buckets: BucketCounts[], users: UserClass[]): Promise<FoldWrite> {
    const [row]: { recorded: number; counted: number; users: number; made: number }[] =
      await this.dataSource.query(FOLD_BATCH, [
        batchId,
        buckets.map((b) => b.projectId),
        buckets.map((b) => hourStart(b.hour)),
        buckets.map((b) => b.environment),
        buckets.map((b) => b.release),
        buckets.map((b) => b.sessions),
        buckets.map((b) => b.errored),
        buckets.map((b) => b.abnormal),
        buckets.map((b) => b.crashed),
        users.map((u) => u.projectId),
        users.map((u) => hourStart(u.hour)),
        users.map((u) => u.environment),
        users.map((u) => u.release),
        users.map((u) => u.userHash),
        users.map((u) => u.worst),
      ]);
    return { recorded: row.recorded === 1, rows: row.counted + row.users + row.made };
  }

  async forgetFoldsBefore(before: Date): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      'DELETE FROM release_health_folds WHERE folded_at < $1',
      [before],
    )) as [unknown, number];
    return deleted;
  }

  /**
   * Sessions counted per release (`by: 'release'`), or per bucket of `bucketHours` from `from` (the key
   * is then the bucket's start in epoch milliseconds).
   */
  async counts(
    filter: HealthFilter,
    by: { release: true } | { bucketHours: number },
  ): Promise<HealthCountRow[]> {
    const key =
      'release' in by
        ? 'release'
        : `(extract(epoch FROM date_bin(make_interval(hours => ${Number(by.bucketHours)}), hour, $2)) * 1000)::bigint::text`;
    const params = [filter.projectId, filter.from, filter.to, filter.environment, filter.releases];
    const [sessions, users] = await Promise.all([
      this.dataSource.query<Omit<HealthCountRow, 'users' | 'crashed_users'>[]>(
        `SELECT ${key} AS key, ${COUNT_COLUMNS} FROM release_health_hourly WHERE ${FILTER} GROUP BY 1`,
        params,
      ),
      this.dataSource.query<{ key: string; users: number; crashed_users: number }[]>(
        `SELECT ${key} AS key, ${USER_COLUMNS} FROM release_health_users WHERE ${FILTER} GROUP BY 1`,
        params,
      ),
    ]);
    const byKey = new Map<string, HealthCountRow>();
    for (const row of sessions) byKey.set(row.key, { ...row, users: 0, crashed_users: 0 });
    for (const row of users) {
      const known = byKey.get(row.key);
      if (known) Object.assign(known, { users: row.users, crashed_users: row.crashed_users });
      else byKey.set(row.key, { sessions: 0, errored: 0, abnormal: 0, crashed: 0, ...row });
    }
    return [...byKey.values()];
  }

  /**
   * Sessions and distinct users per release of a project over [from, to), counting the sessions of
   * these environments (null: every one): what release health alerts judge. The same sums and
   * distinct counts as `counts`, with a list of environments instead of one.
   */
  async countsPerRelease(
    projectId: number,
    from: Date,
    to: Date,
    environments: string[] | null,
  ): Promise<HealthCountRow[]> {
    const where = `project_id = $1 AND hour >= $2 AND hour < $3 AND ($4::text[] IS NULL OR environment = ANY($4))`;
    const params = [projectId, from, to, environments];
    const [sessions, users] = await Promise.all([
      this.dataSource.query<Omit<HealthCountRow, 'users' | 'crashed_users'>[]>(
        `SELECT release AS key, ${COUNT_COLUMNS} FROM release_health_hourly WHERE ${where} GROUP BY 1`,
        params,
      ),
      this.dataSource.query<{ key: string; users: number; crashed_users: number }[]>(
        `SELECT release AS key, ${USER_COLUMNS} FROM release_health_users WHERE ${where} GROUP BY 1`,
        params,
      ),
    ]);
    const usersByRelease = new Map(users.map((row) => [row.key, row]));
    return sessions.map((row) => ({
      ...row,
      users: usersByRelease.get(row.key)?.users ?? 0,
      crashed_users: usersByRelease.get(row.key)?.crashed_users ?? 0,
    }));
  }

  /** Sessions and distinct users over the filter, all releases together. */
  async totals(filter: HealthFilter): Promise<HealthCountRow> {
    const params = [filter.projectId, filter.from, filter.to, filter.environment, filter.releases];
    const [[sessions], [users]] = await Promise.all([
      this.dataSource.query<Omit<HealthCountRow, 'key' | 'users' | 'crashed_users'>[]>(
        `SELECT ${COUNT_COLUMNS} FROM release_health_hourly WHERE ${FILTER}`,
        params,
      ),
      this.dataSource.query<{ users: number; crashed_users: number }[]>(
        `SELECT ${USER_COLUMNS} FROM release_health_users WHERE ${FILTER}`,
        params,
      ),
    ]);
    return { key: '', ...sessions, ...users };
  }

  /** Sessions per release and bucket, for the overview's sparklines. */
  sessionsPerReleaseAndBucket(
    filter: HealthFilter,
    bucketHours: number,
  ): Promise<{ release: string; start: Date; sessions: number }[]> {
    return this.dataSource.query(
      `SELECT release, date_bin(make_interval(hours => $6), hour, $2) AS start, sum(sessions)::float8 AS sessions
         FROM release_health_hourly WHERE ${FILTER} GROUP BY 1, 2`,
      [filter.projectId, filter.from, filter.to, filter.environment, filter.releases, bucketHours],
    );
  }

  /** The environments the project's sessions named, within retention. */
  async environments(projectId: number): Promise<string[]> {
    const rows: { environment: string }[] = await this.dataSource.query(
      `SELECT DISTINCT environment FROM release_health_hourly WHERE project_id = $1 AND environment <> ''
        ORDER BY environment`,
      [projectId],
    );
    return rows.map((row) => row.environment);
  }

  /** Whether the project has this release (its events, its sessions or sentry-cli made it). */
  async releaseExists(projectId: number, version: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM releases WHERE project_id = $1 AND version = $2',
      [projectId, version],
    );
    return rows.length > 0;
  }

  /** Deletes every row of these users (keyed hashes of their distinct ids) in the project. */
  async deleteUsers(projectId: number, userHashes: string[]): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      'DELETE FROM release_health_users WHERE project_id = $1 AND user_hash = ANY($2::uuid[])',
      [projectId, userHashes],
    )) as [unknown, number];
    return deleted;
  }

  async deleteHours(deletion: HourlyRowsDeletion, limit: number): Promise<number> {
    return (
      (await deleteProjectHours(this.dataSource, 'release_health_hourly', deletion, limit)) +
      (await deleteProjectHours(this.dataSource, 'release_health_users', deletion, limit))
    );
  }
}
