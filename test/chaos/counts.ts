/**
 * The counts the service keeps against the events they count, once the load has stopped and every
 * recorded rollup share is folded. Only what the docs make exact is compared:
 *
 * - `event_count` covers an issue's whole life and retention does not decrease it: it is the events
 *   the issue still has plus those retention removed ("Retention", "Stats and tags").
 * - An event counts in the hourly rollups in the hour of its `timestamp`, under its environment ('' for
 *   none); rows older than the project's retention are trimmed, so the hours compared are those a
 *   day inside it, where no event or row has been removed.
 * - A project's hourly count is its issues' for the same hour and environment.
 * - Tag counts cover the whole life too: a key's `total` is the sum of its values' counts and
 *   `distinct` their number; `user_count` is the `user` key's distinct count; every event has a level,
 *   so the `level` total is `event_count`. For issues retention never touched, the `level`,
 *   `environment` and `release` values count exactly the stored events with them.
 */
import { query } from './db';

export interface CountCheck {
  name: string;
  compared: number;
  mismatched: number;
  /** A few mismatching rows, for the report. */
  sample: string[];
}

const HOUR_OF = `date_bin('1 hour', e.timestamp, timestamptz '2000-01-01 00:00:00+00')`;

/** A check holds when it compared something and found no difference: an empty comparison proves nothing. */
export function countCheckPassed(check: CountCheck): boolean {
  return check.compared > 0 && check.mismatched === 0;
}

function check<T extends object>(name: string, rows: T[], bad: (row: T) => boolean): CountCheck {
  const mismatches = rows.filter(bad);
  return {
    name,
    compared: rows.length,
    mismatched: mismatches.length,
    sample: mismatches.slice(0, 3).map((row) => JSON.stringify(row)),
  };
}

/**
 * `removed`: per issue, the events retention removed that its counts still include (none when the
 * retention fault did not run).
 */
export async function checkCounts(
  url: string,
  defaultRetentionDays: number,
  removed: Map<number, number>,
): Promise<CountCheck[]> {
  const removedIds = [...removed.keys()];
  const removedCounts = [...removed.values()];
  const checks: CountCheck[] = [];
  /** Runs `sql` and checks its rows: those for which `bad` holds are mismatches. */
  const compare = async <T extends object>(
    name: string,
    sql: string,
    params: unknown[],
    bad: (row: T) => boolean,
  ): Promise<void> => {
    checks.push(check(name, await query<T>(url, sql, params), bad));
  };

  await compare<{ id: number; event_count: number; events: number; removed: number }>(
    'issues.event_count = events + removed by retention',
    `WITH counted AS (SELECT issue_id, count(*)::int AS n FROM events GROUP BY 1),
          removed AS (SELECT * FROM unnest($1::int[], $2::int[]) AS r(issue_id, n))
     SELECT i.id, i.event_count, coalesce(c.n, 0) AS events, coalesce(r.n, 0) AS removed
       FROM issues i LEFT JOIN counted c ON c.issue_id = i.id LEFT JOIN removed r ON r.issue_id = i.id
      WHERE i.kind = 'error'`,
    [removedIds, removedCounts],
    (row) => row.event_count !== row.events + row.removed,
  );

  // Each issue's hours from a day inside its project's retention on.
  await compare<{
    issue_id: number;
    hour: Date;
    environment: string;
    rolled: number | null;
    counted: number | null;
  }>(
    'issue_hourly = events per issue, hour and environment',
    `WITH since AS (
       SELECT i.id AS issue_id, now() - make_interval(days => coalesce(p.retention_days, $1) - 1) AS since
         FROM issues i JOIN projects p ON p.id = i.project_id
     ), rolled AS (
       SELECT h.issue_id, h.hour, h.environment, h.count
         FROM issue_hourly h JOIN since s USING (issue_id) WHERE h.hour >= s.since
     ), counted AS (
       SELECT e.issue_id, ${HOUR_OF} AS hour, coalesce(e.environment, '') AS environment, count(*)::int AS count
         FROM events e JOIN since s USING (issue_id)
        WHERE ${HOUR_OF} >= s.since
        GROUP BY 1, 2, 3
     )
     SELECT issue_id, hour, environment, r.count AS rolled, c.count AS counted
       FROM rolled r FULL JOIN counted c USING (issue_id, hour, environment)`,
    [defaultRetentionDays],
    (row) => (row.rolled ?? 0) !== (row.counted ?? 0),
  );

  await compare<{
    project_id: number;
    hour: Date;
    environment: string;
    rolled: number | null;
    summed: number | null;
  }>(
    "project_hourly = sum of its issues' issue_hourly",
    `WITH since AS (
       SELECT id AS project_id, now() - make_interval(days => coalesce(retention_days, $1) - 1) AS since FROM projects
     ), summed AS (
       SELECT i.project_id, h.hour, h.environment, sum(h.count)::int AS count
         FROM issue_hourly h JOIN issues i ON i.id = h.issue_id GROUP BY 1, 2, 3
     )
     SELECT project_id, hour, environment, p.count AS rolled, s.count AS summed
       FROM project_hourly p FULL JOIN summed s USING (project_id, hour, environment)
       JOIN since w USING (project_id)
      WHERE hour >= w.since`,
    [defaultRetentionDays],
    (row) => (row.rolled ?? 0) !== (row.summed ?? 0),
  );

  await compare<{
    issue_id: number;
    key: string;
    total: number | null;
    distinct_values: number | null;
    values_total: number | null;
    values: number | null;
  }>(
    'issue_tag_keys total and distinct = their values',
    `WITH v AS (SELECT issue_id, key, sum(count)::int AS total, count(*)::int AS n FROM issue_tag_values GROUP BY 1, 2)
     SELECT issue_id, key, k.total, k.distinct_values, v.total AS values_total, v.n AS values
       FROM issue_tag_keys k FULL JOIN v USING (issue_id, key)`,
    [],
    (row) => row.total !== row.values_total || row.distinct_values !== row.values,
  );

  await compare<{
    id: number;
    event_count: number;
    user_count: number;
    users: number | null;
    levels: number | null;
  }>(
    'user_count = distinct users; level total = event_count',
    `SELECT i.id, i.event_count, i.user_count, u.distinct_values AS users, l.total AS levels
       FROM issues i
       LEFT JOIN issue_tag_keys u ON u.issue_id = i.id AND u.key = 'user'
       LEFT JOIN issue_tag_keys l ON l.issue_id = i.id AND l.key = 'level'
      WHERE i.kind = 'error'`,
    [],
    (row) => row.user_count !== (row.users ?? 0) || row.event_count !== (row.levels ?? 0),
  );

  await compare<{
    issue_id: number;
    key: string;
    value: string;
    rolled: number | null;
    counted: number | null;
  }>(
    'level/environment/release values = events (issues retention never touched)',
    `WITH counted AS (
       SELECT issue_id, 'level' AS key, level AS value, count(*)::int AS count FROM events GROUP BY 1, 3
       UNION ALL
       SELECT issue_id, 'environment', environment, count(*)::int FROM events WHERE environment IS NOT NULL GROUP BY 1, 3
       UNION ALL
       SELECT issue_id, 'release', release, count(*)::int FROM events WHERE release IS NOT NULL GROUP BY 1, 3
     ), rolled AS (
       SELECT issue_id, key, value, count FROM issue_tag_values WHERE key IN ('level', 'environment', 'release')
     )
     SELECT issue_id, key, value, r.count AS rolled, c.count AS counted
       FROM rolled r FULL JOIN counted c USING (issue_id, key, value)
      WHERE issue_id <> ALL($1::int[])`,
    [removedIds],
    (row) => row.rolled !== row.counted,
  );
  return checks;
}
