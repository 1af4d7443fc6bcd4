import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { deleteProjectHours, HourlyRowsDeletion } from '../../database/project-hours-deletion';
import type { HealthCounts } from './health-figures';
import { BucketCounts, BucketKey, hourStart, UserClass } from './session-keys';

/**
 * Adds a batch's counts and users (those of releases the project has, or that the fold just made),
 * inside the fold's transaction, after its batch id was recorded. Counts of a project deleted since
 * are dropped with it. Rows are written in key order so that concurrent folds do not deadlock.
 */
const ADD_COUNTS = `
  WITH counted AS (
    INSERT INTO release_health_hourly AS h (project_id, hour, environment, release, sessions, errored, abnormal, crashed)
    SELECT c.project_id, c.hour, c.environment, c.release, sum(c.s), sum(c.e), sum(c.a), sum(c.c)
      FROM unnest($1::int[], $2::timestamptz[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
           AS c(project_id, hour, environment, release, s, e, a, c)
      JOIN projects p ON p.id = c.project_id
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (project_id, hour, environment, release) DO UPDATE
       SET sessions = h.sessions + EXCLUDED.sessions, errored = h.errored + EXCLUDED.errored,
           abnormal = h.abnormal + EXCLUDED.abnormal, crashed = h.crashed + EXCLUDED.crashed
    RETURNING 1
  ), users AS (
    INSERT INTO release_health_users AS u (project_id, hour, environment, release, user_hash, worst)
    SELECT c.project_id, c.hour, c.environment, c.release, c.user_hash, max(c.worst)
      FROM unnest($9::int[], $10::timestamptz[], $11::text[], $12::text[], $13::uuid[], $14::smallint[])
           AS c(project_id, hour, environment, release, user_hash, worst)
      JOIN projects p ON p.id = c.project_id
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, hour, environment, release, user_hash) DO UPDATE
       SET worst = GREATEST(u.worst, EXCLUDED.worst)
     WHERE u.worst < EXCLUDED.worst
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM counted)::int AS counted, (SELECT count(*) FROM users)::int AS users`;

/** The releases a batch names that its project (still there) does not have, most sessions first. */
const MISSING_RELEASES = `
  SELECT c.project_id, c.release, sum(c.s)::float8 AS sessions
    FROM unnest($1::int[], $2::text[], $3::bigint[]) AS c(project_id, release, s)
    JOIN projects p ON p.id = c.project_id
   WHERE NOT EXISTS (SELECT 1 FROM releases r WHERE r.project_id = c.project_id AND r.version = c.release)
   GROUP BY 1, 2
   ORDER BY 1, 3 DESC, 2`;

/** The project's releases made from sessions this hour, its row locked until the fold commits. */
const LOCK_BUDGET = `
  INSERT INTO release_health_new_releases AS b (project_id, hour, made) VALUES ($1, $2, 0)
  ON CONFLICT (project_id, hour) DO UPDATE SET made = b.made
  RETURNING made`;

/**
 * Sessions dropped because their release was past the hourly cap, counted as outcomes in the same
 * transaction as the fold, so that a batch's drops are counted exactly once, as its counts are.
 */
const COUNT_REFUSED = `
  INSERT INTO outcomes_hourly AS o (project_id, hour, outcome, category, reason, quantity)
  SELECT c.project_id, $3::timestamptz, 'rate_limited', 'session', 'release_limit', c.quantity
    FROM unnest($1::int[], $2::bigint[]) AS c(project_id, quantity)
   ORDER BY 1
  ON CONFLICT (project_id, hour, outcome, category, reason)
  DO UPDATE SET quantity = o.quantity + EXCLUDED.quantity`;

const HOUR_MS = 3_600_000;

export interface FoldWrite {
  /** False: the batch was folded before, nothing was added. */
  recorded: boolean;
  /** Rows inserted or updated. */
  rows: number;
  /** Sessions dropped because their release was past the project's hourly cap of new releases. */
  refusedSessions: number;
}

export interface FoldOptions {
  /** New releases sessions may make per project and hour; 0: no cap. */
  newReleasesPerHour: number;
  now: Date;
}

/** Counts per release (or per bucket) and environment, as the figures read them. */
export interface HealthCountRow extends HealthCounts {
  key: string;
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

  /**
   * Records the batch and, only if it was new, makes the releases it names that are missing (up to
   * the project's hourly cap), adds the counts and users of the releases the project has, and
   * counts the sessions of the releases past the cap as outcomes: one transaction. When the batch
   * id is already recorded (a fold that committed, then died before cleaning up Redis), nothing is
   * added. A second fold of one batch waits for the first's commit on the batch id, then adds
   * nothing. Locks: the batch id, then each project's row of the hourly cap in project order (two
   * folds do not both use its room), then the releases made (only when missing: no lock on a row
   * that exists, so the digest's updates of it do not wait on a fold), then the counts in key order.
   */
  async foldBatch(
    batchId: string,
    buckets: BucketCounts[],
    users: UserClass[],
    options: FoldOptions,
  ): Promise<FoldWrite> {
    return this.dataSource.transaction(async (manager) => {
      const recorded: unknown[] = await manager.query(
        'INSERT INTO release_health_folds (batch_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING batch_id',
        [batchId],
      );
      if (recorded.length === 0) return { recorded: false, rows: 0, refusedSessions: 0 };
      const refused = await this.makeReleases(manager, buckets, options);
      const isKept = (b: BucketKey) => !refused.has(`${b.projectId}\n${b.release}`);
      const kept = buckets.filter(isKept);
      const keptUsers = users.filter(isKept);
      const [row]: { counted: number; users: number }[] = await manager.query(ADD_COUNTS, [
        kept.map((b) => b.projectId),
        kept.map((b) => hourStart(b.hour)),
        kept.map((b) => b.environment),
        kept.map((b) => b.release),
        kept.map((b) => b.sessions),
        kept.map((b) => b.errored),
        kept.map((b) => b.abnormal),
        kept.map((b) => b.crashed),
        keptUsers.map((u) => u.projectId),
        keptUsers.map((u) => hourStart(u.hour)),
        keptUsers.map((u) => u.environment),
        keptUsers.map((u) => u.release),
        keptUsers.map((u) => u.userHash),
        keptUsers.map((u) => u.worst),
      ]);
      const refusedPerProject = new Map<number, number>();
      for (const bucket of buckets) {
        if (isKept(bucket) || bucket.sessions <= 0) continue;
        refusedPerProject.set(
          bucket.projectId,
          (refusedPerProject.get(bucket.projectId) ?? 0) + bucket.sessions,
        );
      }
      if (refusedPerProject.size > 0) {
        await manager.query(COUNT_REFUSED, [
          [...refusedPerProject.keys()],
          [...refusedPerProject.values()],
          hourStart(Math.floor(options.now.getTime() / HOUR_MS)),
        ]);
      }
      const refusedSessions = [...refusedPerProject.values()].reduce((sum, n) => sum + n, 0);
      return { recorded: true, rows: row.counted + row.users + refused.made, refusedSessions };
    });
  }

  /**
   * Makes the missing releases of the batch, per project up to the room left in its hour, those
   * with the most sessions first; returns the `<project>\n<release>` of the others (refused).
   */
  private async makeReleases(
    manager: EntityManager,
    buckets: BucketCounts[],
    options: FoldOptions,
  ): Promise<Set<string> & { made: number }> {
    const refused = Object.assign(new Set<string>(), { made: 0 });
    if (buckets.length === 0) return refused;
    const missing: { project_id: number; release: string }[] = await manager.query(MISSING_RELEASES, [
      buckets.map((b) => b.projectId),
      buckets.map((b) => b.release),
      buckets.map((b) => b.sessions),
    ]);
    const perProject = new Map<number, string[]>();
    for (const row of missing) {
      const list = perProject.get(row.project_id) ?? [];
      list.push(row.release);
      perProject.set(row.project_id, list);
    }
    const hour = hourStart(Math.floor(options.now.getTime() / HOUR_MS));
    for (const [projectId, releases] of perProject) {
      let wanted = releases;
      let over: string[] = [];
      if (options.newReleasesPerHour > 0) {
        const [{ made }]: { made: number }[] = await manager.query(LOCK_BUDGET, [projectId, hour]);
        const room = Math.max(0, options.newReleasesPerHour - made);
        wanted = releases.slice(0, room);
        over = releases.slice(room);
      }
      const created: unknown[] =
        wanted.length === 0
          ? []
          : await manager.query(
              `INSERT INTO releases (project_id, version)
         SELECT $1::int, v FROM unnest($2::text[]) AS v ORDER BY 2
         ON CONFLICT DO NOTHING RETURNING 1`,
              [projectId, wanted],
            );
      refused.made += created.length;
      if (options.newReleasesPerHour > 0 && created.length > 0) {
        await manager.query(
          'UPDATE release_health_new_releases SET made = made + $3 WHERE project_id = $1 AND hour = $2',
          [projectId, hour, created.length],
        );
      }
      if (over.length === 0) continue;
      // One made meanwhile (an event naming it) is the project's now: its sessions are kept.
      const madeMeanwhile: { version: string }[] = await manager.query(
        'SELECT version FROM releases WHERE project_id = $1 AND version = ANY($2)',
        [projectId, over],
      );
      const exists = new Set(madeMeanwhile.map((row) => row.version));
      for (const release of over) if (!exists.has(release)) refused.add(`${projectId}\n${release}`);
    }
    return refused;
  }

  async forgetFoldsBefore(before: Date): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      'DELETE FROM release_health_folds WHERE folded_at < $1',
      [before],
    )) as [unknown, number];
    return deleted;
  }

  /** Forgets the releases the fold made in hours before this one (the cap is per hour). */
  async forgetNewReleasesBefore(before: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM release_health_new_releases WHERE hour < $1', [before]);
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
  /** In `manager`'s transaction when given (the erasure's preview rolls it back). */
  async deleteUsers(projectId: number, userHashes: string[], manager?: EntityManager): Promise<number> {
    const [, deleted] = (await (manager ?? this.dataSource).query(
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
