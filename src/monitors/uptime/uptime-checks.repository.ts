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

  /** Every check due in (from, to], oldest first. */
  rawSeries(monitorId: number, from: Date, to: Date): Promise<CheckPoint[]> {
    return this.dataSource.query(
      `SELECT checked_at AS t, ok, response_ms, status_code, error, 1 AS checks, (NOT ok)::int AS failures
         FROM uptime_checks WHERE monitor_id = $1 AND due_at > $2 AND due_at <= $3
        ORDER BY due_at`,
      [monitorId, from, to],
    );
  }

  /**
   * Buckets of `bucketHours` from the hourly totals since `from` (rounded down to its hour): `ok`
   * when no check of the bucket failed, the mean response time, the counts.
   */
  async bucketedSeries(monitorId: number, from: Date, bucketHours: number): Promise<CheckPoint[]> {
    const rows: {
      t: Date;
      checks: number;
      ok: number;
      ms_sum: string;
      ms_count: number;
    }[] = await this.dataSource.query(
      `SELECT date_bin(make_interval(hours => $3), hour, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS t,
              sum(checks)::int AS checks, sum(ok)::int AS ok,
              sum(response_ms_sum)::text AS ms_sum, sum(response_ms_count)::int AS ms_count
         FROM uptime_check_hours
        WHERE monitor_id = $1 AND hour >= date_trunc('hour', $2::timestamptz, 'UTC')
        GROUP BY 1 ORDER BY 1`,
      [monitorId, from, bucketHours],
    );
    return rows.map((row) => ({
      t: row.t,
      ok: row.ok === row.checks,
      response_ms: row.ms_count > 0 ? Math.round(Number(row.ms_sum) / row.ms_count) : null,
      status_code: null,
      error: row.ok === row.checks ? null : `${row.checks - row.ok} of ${row.checks} checks failed`,
      checks: row.checks,
      failures: row.checks - row.ok,
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
