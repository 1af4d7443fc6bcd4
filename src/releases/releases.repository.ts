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
}

/** Events of one release that a fold adds (see RollupsRepository.fold). */
export interface ReleaseEvents {
  projectId: number;
  version: string;
  count: number;
  first: Date;
  last: Date;
}

/** An issue the digest created, with the release of its first event. */
export interface NewIssueRelease {
  projectId: number;
  version: string;
  at: Date;
}

/**
 * The `releases` table: one row per project and version. The digest counts the issues a release
 * opened when it creates them (it holds the project's numbering lock then, so this adds no wait),
 * and the rollup fold adds the events, many batches at a time, so that batches of a busy release
 * do not queue on its row.
 */
@Injectable()
export class ReleasesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** In the digest's transaction, after its issues: rows in (project, version) order, as the fold writes them. */
  async countNewIssues(manager: EntityManager, issues: NewIssueRelease[]): Promise<void> {
    const sums = new Map<string, ReleaseEvents>();
    for (const issue of issues) {
      const key = `${issue.projectId}\n${issue.version}`;
      const sum = sums.get(key);
      if (!sum)
        sums.set(key, {
          projectId: issue.projectId,
          version: issue.version,
          count: 1,
          first: issue.at,
          last: issue.at,
        });
      else {
        sum.count++;
        if (issue.at < sum.first) sum.first = issue.at;
        if (issue.at > sum.last) sum.last = issue.at;
      }
    }
    if (sums.size === 0) return;
    const rows = sortedReleases([...sums.values()]);
    await manager.query(
      `INSERT INTO releases AS r (project_id, version, first_event, last_event, new_issues)
       SELECT * FROM unnest($1::int[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::int[])
       ON CONFLICT (project_id, version) DO UPDATE
          SET new_issues = r.new_issues + EXCLUDED.new_issues,
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
  }

  /** In the fold's transaction: the events of each release. */
  async addEvents(manager: EntityManager, releases: ReleaseEvents[]): Promise<void> {
    if (releases.length === 0) return;
    const rows = sortedReleases(releases);
    await manager.query(
      `INSERT INTO releases AS r (project_id, version, first_event, last_event, event_count)
       SELECT * FROM unnest($1::int[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bigint[])
       ON CONFLICT (project_id, version) DO UPDATE
          SET event_count = r.event_count + EXCLUDED.event_count,
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
  }

  /** The releases of a project as release ordering needs them (versions it does not know are left out). */
  async known(manager: EntityManager, projectId: number, versions: string[]): Promise<KnownRelease[]> {
    if (versions.length === 0) return [];
    const rows: { version: string; first_event: Date | null }[] = await manager.query(
      'SELECT version, first_event FROM releases WHERE project_id = $1 AND version = ANY($2::text[])',
      [projectId, versions],
    );
    return rows.map((row) => ({ version: row.version, firstEvent: row.first_event ?? undefined }));
  }

  /** Every release of a project with its first event, for finding the newest one. */
  async all(manager: EntityManager, projectId: number): Promise<KnownRelease[]> {
    const rows: { version: string; first_event: Date | null }[] = await manager.query(
      'SELECT version, first_event FROM releases WHERE project_id = $1',
      [projectId],
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
      `SELECT version, first_event, last_event, event_count::float8 AS event_count, new_issues, created_at
         FROM releases
        WHERE project_id = $1
          AND ($3::text IS NULL OR (coalesce(last_event, '-infinity'), version) < (coalesce($2::timestamptz, '-infinity'), $3::text))
        ORDER BY coalesce(last_event, '-infinity') DESC, version DESC
        LIMIT $4`,
      [projectId, after?.lastEvent ?? null, after?.version ?? null, limit],
    );
  }

  async get(projectId: number, version: string): Promise<ReleaseRow | undefined> {
    const rows: ReleaseRow[] = await this.dataSource.query(
      `SELECT version, first_event, last_event, event_count::float8 AS event_count, new_issues, created_at
         FROM releases WHERE project_id = $1 AND version = $2`,
      [projectId, version],
    );
    return rows[0];
  }
}

function sortedReleases<T extends { projectId: number; version: string }>(rows: T[]): T[] {
  return [...rows].sort(
    (a, b) => a.projectId - b.projectId || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0),
  );
}
