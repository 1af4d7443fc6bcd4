import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export type CheckInStatus = 'in_progress' | 'ok' | 'error' | 'missed' | 'timeout';

export interface CheckInRow {
  id: string;
  monitor_id: number;
  environment: string;
  status: CheckInStatus;
  duration_ms: number | null;
  release: string | null;
  expected_at: Date | null;
  timeout_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type CheckInChange = Partial<Pick<CheckInRow, 'status' | 'duration_ms' | 'timeout_at' | 'updated_at'>>;

const COLUMNS =
  'id, monitor_id, environment, status, duration_ms, release, expected_at, timeout_at, created_at, updated_at';
const CHANGE_COLUMNS = ['status', 'duration_ms', 'timeout_at', 'updated_at'] as const;

/** Check-ins of cron monitors: the clients', and the clock's missed ones. */
@Injectable()
export class CheckInsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findForUpdate(manager: EntityManager, id: string): Promise<CheckInRow | undefined> {
    const rows = await manager.query<CheckInRow[]>(
      `SELECT ${COLUMNS} FROM cron_check_ins WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0];
  }

  async latestInProgress(
    manager: EntityManager,
    monitorId: number,
    environment: string,
  ): Promise<CheckInRow | undefined> {
    const rows = await manager.query<CheckInRow[]>(
      `SELECT ${COLUMNS} FROM cron_check_ins
       WHERE monitor_id = $1 AND environment = $2 AND status = 'in_progress'
       ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`,
      [monitorId, environment],
    );
    return rows[0];
  }

  /** False when a check-in of that id exists already. */
  async insert(manager: EntityManager, row: CheckInRow): Promise<boolean> {
    const rows = await manager.query<{ id: string }[]>(
      `INSERT INTO cron_check_ins (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        row.id,
        row.monitor_id,
        row.environment,
        row.status,
        row.duration_ms,
        row.release,
        row.expected_at,
        row.timeout_at,
        row.created_at,
        row.updated_at,
      ],
    );
    return rows.length === 1;
  }

  /** The clock's missed runs, many in one statement. */
  async insertMissed(
    manager: EntityManager,
    rows: { id: string; monitorId: number; environment: string; expectedAt: Date }[],
    now: Date,
  ): Promise<void> {
    if (rows.length === 0) return;
    await manager.query(
      `INSERT INTO cron_check_ins (id, monitor_id, environment, status, expected_at, created_at, updated_at)
       SELECT r.id, r.monitor_id, r.environment, 'missed', r.expected_at, r.expected_at, $5
       FROM unnest($1::uuid[], $2::int[], $3::text[], $4::timestamptz[]) AS r(id, monitor_id, environment, expected_at)
       ON CONFLICT (id) DO NOTHING`,
      [
        rows.map((row) => row.id),
        rows.map((row) => row.monitorId),
        rows.map((row) => row.environment),
        rows.map((row) => row.expectedAt),
        now,
      ],
    );
  }

  async update(manager: EntityManager, id: string, change: CheckInChange): Promise<void> {
    const columns = CHANGE_COLUMNS.filter((column) => change[column] !== undefined);
    if (columns.length === 0) return;
    await manager.query(
      `UPDATE cron_check_ins SET ${columns.map((column, i) => `${column} = $${i + 2}`).join(', ')} WHERE id = $1`,
      [id, ...columns.map((column) => change[column])],
    );
  }

  /** In-progress check-ins past their runtime, oldest first. */
  async timedOutIds(now: Date, limit: number): Promise<string[]> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT id FROM cron_check_ins WHERE status = 'in_progress' AND timeout_at <= $1
       ORDER BY timeout_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => row.id);
  }

  /** A page of a monitor's check-ins (of these statuses), newest first, after the cursor's (created_at, id). */
  list(
    monitorId: number,
    environment: string | undefined,
    after: { at: Date; id: string } | undefined,
    limit: number,
    statuses?: CheckInStatus[],
  ): Promise<CheckInRow[]> {
    const params: unknown[] = [monitorId, limit];
    let where = 'monitor_id = $1';
    if (environment !== undefined) {
      params.push(environment);
      where += ` AND environment = $${params.length}`;
    }
    if (statuses !== undefined) {
      params.push(statuses);
      where += ` AND status = ANY($${params.length}::text[])`;
    }
    if (after) {
      params.push(after.at, after.id);
      where += ` AND (created_at, id) < ($${params.length - 1}, $${params.length}::uuid)`;
    }
    return this.dataSource.query<CheckInRow[]>(
      `SELECT ${COLUMNS} FROM cron_check_ins WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $2`,
      params,
    );
  }

  /** Retention: a batch of check-ins created before `before` (served by the created_at index). */
  async deleteCreatedBefore(before: Date, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM cron_check_ins WHERE id = ANY(ARRAY(
         SELECT id FROM cron_check_ins WHERE created_at < $1 LIMIT $2))`,
      [before, limit],
    )) as [unknown, number];
    return deleted;
  }

  /** Per monitor and UTC day since `from`: finished runs (ok, error, missed, timed out) and the ok ones. */
  async dailyResults(
    monitorIds: number[],
    from: Date,
  ): Promise<{ monitor_id: number; day: string; ok: number; runs: number }[]> {
    if (monitorIds.length === 0) return [];
    return this.dataSource.query(
      `SELECT monitor_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
              count(*) FILTER (WHERE status = 'ok')::int AS ok,
              count(*) FILTER (WHERE status <> 'in_progress')::int AS runs
         FROM cron_check_ins
        WHERE monitor_id = ANY($1::int[]) AND created_at >= $2
        GROUP BY 1, 2`,
      [monitorIds, from],
    );
  }
}
