import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface HourlyResponseTime {
  monitor_id: number;
  t: Date;
  response_ms: number;
}

export interface CheckPoint {
  t: Date;
  ok: boolean;
  response_ms: number | null;
  status_code: number | null;
  error: string | null;
  checks: number;
  failures: number;
}

/** A failed check (`until` null), or an hour with failed checks (`at` its start, `until` its end). */
export interface FailedCheckRow {
  at: Date;
  until: Date | null;
  checks: number;
  failures: number;
  status_code: number | null;
  error: string | null;
  response_ms: number | null;
}

/** Checks and failures of a monitor over a window. */
export interface CheckCounts {
  monitor_id: number;
  checks: number;
  ok: number;
}

export interface DailyCounts extends CheckCounts {
  day: string;
}

/**
 * The checks' rows and their hourly totals: the response-time series, uptime figures, and their
 * retention. Raw checks answer the last 24 hours; longer windows read the hourly totals (one row
 * per monitor and hour, whatever the interval), so a 90-day status page reads 2,160 rows per
 * monitor, not 130,000 checks.
 */
@Injectable()
export class UptimeChecksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * `count` buckets of `bucketMinutes` from `from` (on a bucket's start), read from the raw checks
   * by when each was due: every bucket, with none left out for want of checks (checks 0, no
   * response time), so that a chart's width is the period and empty time looks empty.
   */
  rawBuckets(monitorId: number, from: Date, bucketMinutes: number, count: number): Promise<CheckPoint[]> {
    return this.buckets(
      `SELECT date_bin(make_interval(mins => $3::int), due_at, $2::timestamptz) AS t, count(*)::int AS checks,
              (count(*) FILTER (WHERE NOT ok))::int AS failures,
              sum(response_ms)::text AS ms_sum, count(response_ms)::int AS ms_count
         FROM uptime_checks
        WHERE monitor_id = $1 AND due_at >= $2 AND due_at < $2::timestamptz + make_interval(mins => $3::int * $4::int)
        GROUP BY 1`,
      [monitorId, from, bucketMinutes, count],
    );
  }

  /** As rawBuckets, from the hourly totals (buckets of whole hours, `from` on an hour). */
  hourlyBuckets(monitorId: number, from: Date, bucketHours: number, count: number): Promise<CheckPoint[]> {
    return this.buckets(
      `SELECT date_bin(make_interval(mins => $3::int), hour, $2::timestamptz) AS t, sum(checks)::int AS checks,
              sum(checks - ok)::int AS failures,
              sum(response_ms_sum)::text AS ms_sum, sum(response_ms_count)::int AS ms_count
         FROM uptime_check_hours
        WHERE monitor_id = $1 AND hour >= $2 AND hour < $2::timestamptz + make_interval(mins => $3::int * $4::int)
        GROUP BY 1`,
      [monitorId, from, bucketHours * 60, count],
    );
  }

  /** `totals` (grouped by bucket start `t`) over the series of every bucket start ($2, $3 minutes, $4 of them). */
  private async buckets(totals: string, params: [number, Date, number, number]): Promise<CheckPoint[]> {
    const rows: { t: Date; checks: number; failures: number; ms_sum: string | null; ms_count: number }[] =
      await this.dataSource.query(
        `WITH totals AS (${totals})
         SELECT b.t, coalesce(totals.checks, 0) AS checks, coalesce(totals.failures, 0) AS failures,
                totals.ms_sum, coalesce(totals.ms_count, 0) AS ms_count
           FROM generate_series(0, $4::int - 1) AS i
          CROSS JOIN LATERAL (SELECT $2::timestamptz + make_interval(mins => $3::int * i) AS t) AS b
           LEFT JOIN totals ON totals.t = b.t
          ORDER BY b.t`,
        params,
      );
    return rows.map((row) => ({
      t: row.t,
      ok: row.failures === 0,
      response_ms: row.ms_count > 0 ? Math.round(Number(row.ms_sum) / row.ms_count) : null,
      status_code: null,
      error: row.failures === 0 ? null : `${row.failures} of ${row.checks} checks failed`,
      checks: row.checks,
      failures: row.failures,
    }));
  }

  /** The failed checks due since `from`, newest first: each at its own time, with what failed. */
  rawFailures(monitorId: number, from: Date, limit: number): Promise<FailedCheckRow[]> {
    return this.dataSource.query(
      `SELECT checked_at AS at, NULL::timestamptz AS until, 1 AS checks, 1 AS failures, status_code, error, response_ms
         FROM uptime_checks WHERE monitor_id = $1 AND due_at >= $2 AND NOT ok
        ORDER BY due_at DESC LIMIT $3`,
      [monitorId, from, limit],
    );
  }

  /** The hours in [from, before) with failed checks, newest first, from the hourly totals. */
  async hourlyFailures(
    monitorId: number,
    from: Date,
    before: Date,
    limit: number,
  ): Promise<FailedCheckRow[]> {
    const rows: (Omit<FailedCheckRow, 'response_ms'> & { ms_sum: string; ms_count: number })[] =
      await this.dataSource.query(
        `SELECT hour AS at, hour + interval '1 hour' AS until, checks, checks - ok AS failures,
                NULL::int AS status_code, response_ms_sum::text AS ms_sum, response_ms_count AS ms_count
           FROM uptime_check_hours
          WHERE monitor_id = $1 AND hour >= date_trunc('hour', $2::timestamptz, 'UTC') AND hour < $3 AND ok < checks
          ORDER BY hour DESC LIMIT $4`,
        [monitorId, from, before, limit],
      );
    return rows.map(({ ms_sum, ms_count, ...row }) => ({
      ...row,
      error: `${row.failures} of ${row.checks} checks failed`,
      response_ms: ms_count > 0 ? Math.round(Number(ms_sum) / ms_count) : null,
    }));
  }

  /** Checks due in (from, to] per monitor, from the raw rows (exact to the check). */
  countsRaw(monitorIds: number[], from: Date, to: Date): Promise<CheckCounts[]> {
    return this.dataSource.query(
      `SELECT monitor_id, count(*)::int AS checks, count(*) FILTER (WHERE ok)::int AS ok
         FROM uptime_checks
        WHERE monitor_id = ANY($1::int[]) AND due_at > $2 AND due_at <= $3
        GROUP BY monitor_id`,
      [monitorIds, from, to],
    );
  }

  /** Checks per monitor from the hour that holds `from` on (whole hours). */
  countsHourly(monitorIds: number[], from: Date): Promise<CheckCounts[]> {
    return this.dataSource.query(
      `SELECT monitor_id, sum(checks)::int AS checks, sum(ok)::int AS ok
         FROM uptime_check_hours
        WHERE monitor_id = ANY($1::int[]) AND hour >= date_trunc('hour', $2::timestamptz, 'UTC')
        GROUP BY monitor_id`,
      [monitorIds, from],
    );
  }

  /** Mean response time per monitor and UTC hour from the hour that holds `from` on (hours with none timed left out). */
  hourlyResponseTimes(monitorIds: number[], from: Date): Promise<HourlyResponseTime[]> {
    return this.dataSource.query(
      `SELECT monitor_id, hour AS t, round(response_ms_sum::numeric / response_ms_count)::int AS response_ms
         FROM uptime_check_hours
        WHERE monitor_id = ANY($1::int[]) AND hour >= date_trunc('hour', $2::timestamptz, 'UTC')
          AND response_ms_count > 0`,
      [monitorIds, from],
    );
  }

  /** Checks per monitor and UTC day (`YYYY-MM-DD`) from the day that holds `from` on. */
  daily(monitorIds: number[], from: Date): Promise<DailyCounts[]> {
    return this.dataSource.query(
      `SELECT monitor_id, to_char(date_trunc('day', hour, 'UTC') AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
              sum(checks)::int AS checks, sum(ok)::int AS ok
         FROM uptime_check_hours
        WHERE monitor_id = ANY($1::int[]) AND hour >= date_trunc('day', $2::timestamptz, 'UTC')
        GROUP BY 1, 2`,
      [monitorIds, from],
    );
  }

  /** Retention: a batch of checks due before `before`; the number deleted. */
  async deleteChecksBefore(before: Date, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM uptime_checks WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM uptime_checks WHERE due_at < $1 LIMIT $2))`,
      [before, limit],
    )) as [unknown, number];
    return deleted;
  }

  /** Retention: a batch of hourly totals of hours before `before`. */
  async deleteHoursBefore(before: Date, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM uptime_check_hours WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM uptime_check_hours WHERE hour < $1 LIMIT $2))`,
      [before, limit],
    )) as [unknown, number];
    return deleted;
  }
}
