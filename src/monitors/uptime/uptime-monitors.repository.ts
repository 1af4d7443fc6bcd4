import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UptimeSettings } from './uptime-monitor-rules';
import type { MonitorHealth } from '../incidents/monitor-thresholds';

export interface UptimeMonitorRow {
  id: number;
  project_id: number;
  name: string;
  url: string;
  method: UptimeSettings['method'];
  headers: Record<string, string>;
  body: string | null;
  expected_status_min: number;
  expected_status_max: number;
  body_contains: string | null;
  interval_seconds: number;
  timeout_seconds: number;
  tls_expiry_days: number;
  failure_threshold: number;
  recovery_threshold: number;
  muted: boolean;
  status: MonitorHealth;
  consecutive_failures: number;
  consecutive_successes: number;
  next_due_at: Date;
  last_due_at: Date | null;
  last_checked_at: Date | null;
  last_response_ms: number | null;
  last_status_code: number | null;
  last_error: string | null;
  tls_expires_at: Date | null;
  tls_warned_expiry: Date | null;
  created_at: Date;
}

/** A check that was due, claimed by one tick: run it for `due_at`. */
export interface ClaimedCheck {
  id: number;
  due_at: Date;
}

export interface RecordedCheck {
  monitorId: number;
  dueAt: Date;
  checkedAt: Date;
  ok: boolean;
  responseMs: number | null;
  statusCode: number | null;
  error: string | null;
}

export interface MonitorStateChange {
  status: MonitorHealth;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  dueAt: Date;
  checkedAt: Date;
  responseMs: number | null;
  statusCode: number | null;
  error: string | null;
  tlsExpiresAt: Date | null;
  tlsWarnedExpiry: Date | null;
}

const SETTINGS_COLUMNS = [
  'name',
  'url',
  'method',
  'headers',
  'body',
  'expected_status_min',
  'expected_status_max',
  'body_contains',
  'interval_seconds',
  'timeout_seconds',
  'tls_expiry_days',
  'failure_threshold',
  'recovery_threshold',
  'muted',
] as const;

function settingsValues(s: UptimeSettings): unknown[] {
  return [
    s.name,
    s.url,
    s.method,
    JSON.stringify(s.headers),
    s.body,
    s.expectedStatusMin,
    s.expectedStatusMax,
    s.bodyContains,
    s.intervalSeconds,
    s.timeoutSeconds,
    s.tlsExpiryDays,
    s.failureThreshold,
    s.recoveryThreshold,
    s.muted,
  ];
}

/**
 * A check's row and its hour's totals in one statement: the totals are added to only when the
 * check's row is new, so a check run twice (a job retried after its worker died) counts once.
 */
const RECORD_CHECK = `
  WITH inserted AS (
    INSERT INTO uptime_checks (monitor_id, due_at, checked_at, ok, response_ms, status_code, error)
    VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (monitor_id, due_at) DO NOTHING
    RETURNING monitor_id, due_at, ok, response_ms
  ), hour AS (
    INSERT INTO uptime_check_hours AS h
      (monitor_id, hour, checks, ok, response_ms_sum, response_ms_count, response_ms_max)
    SELECT monitor_id, date_trunc('hour', due_at, 'UTC'), 1, ok::int, coalesce(response_ms, 0),
           (response_ms IS NOT NULL)::int, response_ms
      FROM inserted
    ON CONFLICT (monitor_id, hour) DO UPDATE SET
      checks = h.checks + 1,
      ok = h.ok + EXCLUDED.ok,
      response_ms_sum = h.response_ms_sum + EXCLUDED.response_ms_sum,
      response_ms_count = h.response_ms_count + EXCLUDED.response_ms_count,
      response_ms_max = greatest(h.response_ms_max, EXCLUDED.response_ms_max)
    RETURNING 1
  )
  SELECT count(*)::int AS inserted FROM inserted`;

/** The uptime_monitors rows: settings, the schedule (claims) and the state checks leave. */
@Injectable()
export class UptimeMonitorsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  list(projectId: number): Promise<UptimeMonitorRow[]> {
    return this.dataSource.query('SELECT * FROM uptime_monitors WHERE project_id = $1 ORDER BY id', [
      projectId,
    ]);
  }

  async find(projectId: number, id: number): Promise<UptimeMonitorRow | undefined> {
    const rows: UptimeMonitorRow[] = await this.dataSource.query(
      'SELECT * FROM uptime_monitors WHERE project_id = $1 AND id = $2',
      [projectId, id],
    );
    return rows[0];
  }

  async findById(id: number): Promise<UptimeMonitorRow | undefined> {
    const rows: UptimeMonitorRow[] = await this.dataSource.query(
      'SELECT * FROM uptime_monitors WHERE id = $1',
      [id],
    );
    return rows[0];
  }

  /** Those of `ids` that belong to the project (for the status page's choice). */
  async idsInProject(projectId: number, ids: number[]): Promise<number[]> {
    const rows: { id: number }[] = await this.dataSource.query(
      'SELECT id FROM uptime_monitors WHERE project_id = $1 AND id = ANY($2::int[])',
      [projectId, ids],
    );
    return rows.map((row) => row.id);
  }

  /** The monitors among `ids` (in any project), for the status page. */
  byIds(ids: number[]): Promise<UptimeMonitorRow[]> {
    return this.dataSource.query('SELECT * FROM uptime_monitors WHERE id = ANY($1::int[]) ORDER BY id', [
      ids,
    ]);
  }

  async insert(projectId: number, settings: UptimeSettings, nextDueAt: Date): Promise<UptimeMonitorRow> {
    const columns = ['project_id', ...SETTINGS_COLUMNS, 'next_due_at'];
    const values = [projectId, ...settingsValues(settings), nextDueAt];
    const rows: UptimeMonitorRow[] = await this.dataSource.query(
      `INSERT INTO uptime_monitors (${columns.join(', ')})
       VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`,
      values,
    );
    return rows[0];
  }

  /**
   * New settings; `nextDueAt` when the schedule changes (a new interval or URL is checked soon). A
   * change of URL starts the state afresh: what was known of the old site says nothing of the new.
   */
  async update(
    projectId: number,
    id: number,
    settings: UptimeSettings,
    nextDueAt: Date | null,
    resetState: boolean,
  ): Promise<UptimeMonitorRow | undefined> {
    const values = [...settingsValues(settings), projectId, id, nextDueAt];
    const n = SETTINGS_COLUMNS.length;
    const reset = resetState
      ? `, status = 'pending', consecutive_failures = 0, consecutive_successes = 0,
         tls_expires_at = NULL, tls_warned_expiry = NULL`
      : '';
    const rows: UptimeMonitorRow[] = await this.dataSource.query(
      `UPDATE uptime_monitors
          SET ${SETTINGS_COLUMNS.map((column, i) => `${column} = $${i + 1}`).join(', ')},
              next_due_at = coalesce($${n + 3}, next_due_at), updated_at = now() ${reset}
        WHERE project_id = $${n + 1} AND id = $${n + 2}
        RETURNING *`,
      values,
    );
    return rows[0];
  }

  async delete(projectId: number, id: number): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.dataSource.query(
      'DELETE FROM uptime_monitors WHERE project_id = $1 AND id = $2',
      [projectId, id],
    );
    return affected > 0;
  }

  /**
   * Locks up to `limit` monitors whose check is due by `until`, oldest first, skipping those another
   * tick holds: two ticks never claim the same check. The caller moves their next_due_at on in the
   * same transaction (`reschedule`) and queues the checks before committing.
   */
  lockDue(
    manager: EntityManager,
    until: Date,
    limit: number,
  ): Promise<{ id: number; next_due_at: Date; interval_seconds: number }[]> {
    return manager.query(
      `SELECT id, next_due_at, interval_seconds FROM uptime_monitors
        WHERE next_due_at <= $1 ORDER BY next_due_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [until, limit],
    );
  }

  async reschedule(manager: EntityManager, next: { id: number; nextDueAt: Date }[]): Promise<void> {
    if (next.length === 0) return;
    await manager.query(
      `UPDATE uptime_monitors m SET next_due_at = n.next_due_at
         FROM unnest($1::int[], $2::timestamptz[]) AS n(id, next_due_at)
        WHERE m.id = n.id`,
      [next.map((entry) => entry.id), next.map((entry) => entry.nextDueAt.toISOString())],
    );
  }

  /** The monitor's row, locked until the transaction ends: one check's outcome applied at a time. */
  async lockForCheck(manager: EntityManager, id: number): Promise<UptimeMonitorRow | undefined> {
    const rows: UptimeMonitorRow[] = await manager.query(
      'SELECT * FROM uptime_monitors WHERE id = $1 FOR UPDATE',
      [id],
    );
    return rows[0];
  }

  async checkRecorded(monitorId: number, dueAt: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM uptime_checks WHERE monitor_id = $1 AND due_at = $2',
      [monitorId, dueAt],
    );
    return rows.length > 0;
  }

  /** False when this check (monitor, due time) was already recorded. */
  async recordCheck(manager: EntityManager, check: RecordedCheck): Promise<boolean> {
    const rows: { inserted: number }[] = await manager.query(RECORD_CHECK, [
      check.monitorId,
      check.dueAt,
      check.checkedAt,
      check.ok,
      check.responseMs,
      check.statusCode,
      check.error === null ? null : check.error.slice(0, 1_000),
    ]);
    return rows[0].inserted > 0;
  }

  async applyState(manager: EntityManager, id: number, change: MonitorStateChange): Promise<void> {
    await manager.query(
      `UPDATE uptime_monitors
          SET status = $2, consecutive_failures = $3, consecutive_successes = $4, last_due_at = $5,
              last_checked_at = $6, last_response_ms = $7, last_status_code = $8, last_error = $9,
              tls_expires_at = coalesce($10, tls_expires_at), tls_warned_expiry = $11
        WHERE id = $1`,
      [
        id,
        change.status,
        change.consecutiveFailures,
        change.consecutiveSuccesses,
        change.dueAt,
        change.checkedAt,
        change.responseMs,
        change.statusCode,
        change.error === null ? null : change.error.slice(0, 1_000),
        change.tlsExpiresAt,
        change.tlsWarnedExpiry,
      ],
    );
  }
}
