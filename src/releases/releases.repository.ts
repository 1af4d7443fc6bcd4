import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { KnownRelease } from './release-order';

/** What the releases list and page show of one release. */
export interface ReleaseRow {
  version: string;
  first_event: Date | null;
  last_event: Date | null;
  event_count: number;
  new_issues: number;
  created_at: Date;
  date_released: Date | null;
}

/** A deploy of a release to an environment (`sentry-cli releases deploys … new`). */
export interface DeployRow {
  id: string;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: Date | null;
  date_finished: Date;
}

/** Events of one release in one environment ('' for none) that a fold adds (see RollupsRepository.fold). */
export interface ReleaseEvents {
  projectId: number;
  version: string;
  environment: string;
  count: number;
  first: Date;
  last: Date;
}

/** An issue the digest created, with the release and environment ('' for none) of its first event. */
export interface NewIssueRelease {
  projectId: number;
  version: string;
  environment: string;
  at: Date;
}

/** A release's counters in one environment. */
export interface ReleaseEnvironmentCounts {
  version: string;
  event_count: number;
  new_issues: number;
}

/**
 * The `releases` table: one row per project and version. The digest counts the issues a release
 * opened when it creates them (it holds the project's numbering lock then, so this adds no wait),
 * and the rollup fold adds the events, many batches at a time, so that batches of a busy release
 * do not queue on its row. Both counters are kept per environment too (`release_environments`),
 * written right after the release's row, for the figures of one environment.
 */
@Injectable()
export class ReleasesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** In the digest's transaction, after its issues: one issue more for the release of each. */
  async countNewIssues(manager: EntityManager, issues: NewIssueRelease[]): Promise<void> {
    const sums = new Map<string, ReleaseEvents>();
    for (const { projectId, version, environment, at } of issues) {
      const key = `${projectId}\n${version}\n${environment}`;
      const sum = sums.get(key);
      if (!sum) sums.set(key, { projectId, version, environment, count: 1, first: at, last: at });
      else {
        sum.count++;
        if (at < sum.first) sum.first = at;
        if (at > sum.last) sum.last = at;
      }
    }
    await this.add(manager, 'new_issues', [...sums.values()]);
  }

  /** In the fold's transaction: the events of each release. */
  addEvents(manager: EntityManager, releases: ReleaseEvents[]): Promise<void> {
    return this.add(manager, 'event_count', releases);
  }

  /**
   * Takes erased events out of their releases' event counts, in the erasure's transaction, after
   * its rollup rows as the fold does. The rows are locked in (project, version) order first; their
   * first and last event stay where they were.
   */
  async subtractEvents(manager: EntityManager, releases: ReleaseEvents[]): Promise<number> {
    if (releases.length === 0) return 0;
    const rows = perRelease(releases);
    const projects = rows.map((row) => row.projectId);
    const versions = rows.map((row) => row.version);
    await manager.query(
      `SELECT 1 FROM releases r JOIN unnest($1::int[], $2::text[]) AS d(project_id, version)
          ON r.project_id = d.project_id AND r.version = d.version
        ORDER BY r.project_id, r.version FOR NO KEY UPDATE OF r`,
      [projects, versions],
    );
    const [, changed]: [unknown, number] = await manager.query(
      `UPDATE releases r SET event_count = GREATEST(0, r.event_count - d.count)
         FROM unnest($1::int[], $2::text[], $3::int[]) AS d(project_id, version, count)
        WHERE r.project_id = d.project_id AND r.version = d.version`,
      [projects, versions, rows.map((row) => row.count)],
    );
    const byEnvironment = sortedReleases(releases);
    await manager.query(
      `SELECT 1 FROM release_environments r
         JOIN unnest($1::int[], $2::text[], $3::text[]) AS d(project_id, version, environment)
           ON r.project_id = d.project_id AND r.version = d.version AND r.environment = d.environment
        ORDER BY r.project_id, r.version COLLATE "C", r.environment COLLATE "C" FOR NO KEY UPDATE OF r`,
      environmentColumns(byEnvironment).slice(0, 3),
    );
    const [, environmentRows]: [unknown, number] = await manager.query(
      `UPDATE release_environments r SET event_count = GREATEST(0, r.event_count - d.count)
         FROM unnest($1::int[], $2::text[], $3::text[], $4::int[]) AS d(project_id, version, environment, count)
        WHERE r.project_id = d.project_id AND r.version = d.version AND r.environment = d.environment`,
      [...environmentColumns(byEnvironment).slice(0, 3), byEnvironment.map((row) => row.count)],
    );
    return changed + environmentRows;
  }

  /** The counters of these releases in one environment (a release without any there is left out). */
  async inEnvironment(
    projectId: number,
    environment: string,
    versions: string[],
  ): Promise<ReleaseEnvironmentCounts[]> {
    if (versions.length === 0) return [];
    return this.dataSource.query(
      `SELECT version, event_count::float8 AS event_count, new_issues FROM release_environments
        WHERE project_id = $1 AND environment = $2 AND version = ANY($3::text[])`,
      [projectId, environment, versions],
    );
  }

  /** The environments the project's releases' events named. */
  async environments(projectId: number): Promise<string[]> {
    const rows: { environment: string }[] = await this.dataSource.query(
      `SELECT DISTINCT environment FROM release_environments WHERE project_id = $1 AND environment <> ''`,
      [projectId],
    );
    return rows.map((row) => row.environment);
  }

  /**
   * Adds counts to one of a release's counters, widening its first and last event. Rows in
   * (project, version) order (see the lock order in issues.repository.ts).
   */
  private async add(
    manager: EntityManager,
    counter: 'new_issues' | 'event_count',
    releases: ReleaseEvents[],
  ): Promise<void> {
    if (releases.length === 0) return;
    const rows = perRelease(releases);
    await manager.query(
      `INSERT INTO releases AS r (project_id, version, first_event, last_event, ${counter})
       SELECT * FROM unnest($1::int[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::int[])
       ON CONFLICT (project_id, version) DO UPDATE
          SET ${counter} = r.${counter} + EXCLUDED.${counter},
              first_event = LEAST(r.first_event, EXCLUDED.first_event),
              last_event = GREATEST(r.last_event, EXCLUDED.last_event)`,
      [
        rows.map((row) => row.projectId),
        rows.map((row) => row.version),
        rows.map((row) => row.first),
        rows.map((row) => row.last),
        rows.map((row) => row.count),
      ],
    );
    const byEnvironment = sortedReleases(releases);
    await manager.query(
      `INSERT INTO release_environments AS r (project_id, version, environment, ${counter})
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::int[])
       ON CONFLICT (project_id, version, environment) DO UPDATE SET ${counter} = r.${counter} + EXCLUDED.${counter}`,
      [...environmentColumns(byEnvironment).slice(0, 3), byEnvironment.map((row) => row.count)],
    );
  }

  /**
   * A project's releases as release ordering needs them: those named (versions it does not know
   * are left out), or all of them.
   */
  async known(manager: EntityManager, projectId: number, versions?: string[]): Promise<KnownRelease[]> {
    if (versions?.length === 0) return [];
    const rows: { version: string; first_event: Date | null }[] = await manager.query(
      'SELECT version, first_event FROM releases WHERE project_id = $1 AND ($2::text[] IS NULL OR version = ANY($2))',
      [projectId, versions ?? null],
    );
    return rows.map((row) => ({ version: row.version, firstEvent: row.first_event ?? undefined }));
  }

  /** A page of a project's releases, the most recently seen first (keyset on last event, version). */
  async list(
    projectId: number,
    limit: number,
    after?: { lastEvent: Date | null; version: string },
  ): Promise<ReleaseRow[]> {
    return this.dataSource.query(
      `SELECT version, first_event, last_event, event_count::float8 AS event_count, new_issues, created_at,
              date_released
         FROM releases
        WHERE project_id = $1
          AND ($3::text IS NULL OR (coalesce(last_event, '-infinity'), version) < (coalesce($2::timestamptz, '-infinity'), $3::text))
        ORDER BY coalesce(last_event, '-infinity') DESC, version DESC
        LIMIT $4`,
      [projectId, after?.lastEvent ?? null, after?.version ?? null, limit],
    );
  }

  /**
   * Releases announced before their first event (sentry-cli, the bundler plugins): the projects'
   * rows, made if missing, with `date_released` set when given (a finalize).
   */
  private async upsertAnnounced(
    manager: EntityManager,
    projectIds: number[],
    version: string,
    dateReleased: Date | null,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO releases AS r (project_id, version, date_released)
       SELECT p, $2, $3 FROM unnest($1::int[]) AS p ORDER BY p
       ON CONFLICT (project_id, version) DO UPDATE SET date_released = coalesce(EXCLUDED.date_released, r.date_released)`,
      [[...new Set(projectIds)], version, dateReleased],
    );
  }

  /** Makes the releases of these projects if missing; with `dateReleased`, marks them released. */
  announce(projectIds: number[], version: string, dateReleased: Date | null): Promise<void> {
    return this.dataSource.transaction((manager) =>
      this.upsertAnnounced(manager, projectIds, version, dateReleased),
    );
  }

  /** The projects that have this release. */
  async projectsWith(version: string): Promise<number[]> {
    const rows: { project_id: number }[] = await this.dataSource.query(
      'SELECT project_id FROM releases WHERE version = $1 ORDER BY project_id',
      [version],
    );
    return rows.map((row) => row.project_id);
  }

  async addDeploy(projectIds: number[], version: string, deploy: Omit<DeployRow, 'id'>): Promise<DeployRow> {
    return this.dataSource.transaction(async (manager) => {
      await this.upsertAnnounced(manager, projectIds, version, null);
      const rows: DeployRow[] = await manager.query(
        `INSERT INTO release_deploys (project_id, version, environment, name, url, date_started, date_finished)
         SELECT p, $2, $3, $4, $5, $6, $7 FROM unnest($1::int[]) AS p
         RETURNING id::text AS id, environment, name, url, date_started, date_finished`,
        [
          [...new Set(projectIds)],
          version,
          deploy.environment,
          deploy.name,
          deploy.url,
          deploy.date_started,
          deploy.date_finished,
        ],
      );
      return rows[0];
    });
  }

  /** A release's deploys, the latest first. */
  deploys(projectId: number, version: string, limit: number): Promise<DeployRow[]> {
    return this.dataSource.query(
      `SELECT id::text AS id, environment, name, url, date_started, date_finished FROM release_deploys
        WHERE project_id = $1 AND version = $2 ORDER BY date_finished DESC, release_deploys.id DESC LIMIT $3`,
      [projectId, version, limit],
    );
  }

  async get(projectId: number, version: string): Promise<ReleaseRow | undefined> {
    const rows: ReleaseRow[] = await this.dataSource.query(
      `SELECT version, first_event, last_event, event_count::float8 AS event_count, new_issues, created_at,
              date_released
         FROM releases WHERE project_id = $1 AND version = $2`,
      [projectId, version],
    );
    return rows[0];
  }
}

/** Rows in (project, version, environment) order, code-unit order for every worker whatever its locale. */
function sortedReleases<T extends { projectId: number; version: string; environment?: string }>(
  rows: T[],
): T[] {
  return [...rows].sort(
    (a, b) =>
      a.projectId - b.projectId ||
      compareText(a.version, b.version) ||
      compareText(a.environment ?? '', b.environment ?? ''),
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The per-environment rows summed into one per release, in (project, version) order. */
function perRelease(releases: ReleaseEvents[]): ReleaseEvents[] {
  const sums = new Map<string, ReleaseEvents>();
  for (const row of releases) {
    const key = `${row.projectId}\n${row.version}`;
    const sum = sums.get(key);
    if (!sum) sums.set(key, { ...row, environment: '' });
    else {
      sum.count += row.count;
      if (row.first < sum.first) sum.first = row.first;
      if (row.last > sum.last) sum.last = row.last;
    }
  }
  return sortedReleases([...sums.values()]);
}

function environmentColumns(rows: ReleaseEvents[]): [number[], string[], string[]] {
  return [
    rows.map((row) => row.projectId),
    rows.map((row) => row.version),
    rows.map((row) => row.environment),
  ];
}
