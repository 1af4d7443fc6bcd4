import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

const HOUR_MS = 3_600_000;

/** What a project card counts: its unresolved issues, and its events of the last 24 hours. */
export interface ProjectActivity {
  openIssues: number;
  events24h: number;
}

/**
 * The counts of the project list. The issues and rollup tables belong to layers above this one, so
 * they are read by SQL here rather than through their repositories, which this layer may not import.
 * Both stay cheap however many events there are: open issues through the (project_id, state, …)
 * index, events through the hourly rollups (24 rows per project and environment), never the events.
 */
@Injectable()
export class ProjectActivityRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * By project id; a project without issues or events is missing (zero). "The last 24 hours" is the
   * window of the project's 24h stats (this hour and the 23 before it), so the card and the chart
   * agree; counts the digest recorded but has not folded into the rollups yet are not in it.
   */
  async byProject(projectIds: number[], now = new Date()): Promise<Map<number, ProjectActivity>> {
    if (projectIds.length === 0) return new Map();
    // Cut at the UTC hour in JavaScript: date_trunc would cut at the session's, which may be a half hour off.
    const since = new Date((Math.floor(now.getTime() / HOUR_MS) - 23) * HOUR_MS);
    const rows: { project_id: number; open_issues: number; events_24h: number }[] =
      await this.dataSource.query(
        `WITH open AS (
         SELECT project_id, count(*)::float8 AS n FROM issues
          WHERE project_id = ANY($1::int[]) AND state = 'open' AND merged_into_id IS NULL
          GROUP BY project_id
       ), recent AS (
         SELECT project_id, sum(count)::float8 AS n FROM project_hourly
          WHERE project_id = ANY($1::int[]) AND hour >= $2
          GROUP BY project_id
       )
       SELECT p.id AS project_id, coalesce(open.n, 0) AS open_issues, coalesce(recent.n, 0) AS events_24h
         FROM unnest($1::int[]) AS p(id)
         LEFT JOIN open ON open.project_id = p.id
         LEFT JOIN recent ON recent.project_id = p.id`,
        [projectIds, since],
      );
    return new Map(
      rows.map((row) => [
        row.project_id,
        { openIssues: Number(row.open_issues), events24h: Number(row.events_24h) },
      ]),
    );
  }
}
