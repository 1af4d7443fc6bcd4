import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export type EnvironmentStatus = 'pending' | 'ok' | 'error' | 'missed' | 'timeout' | 'in_progress';

export interface CronMonitorRow {
  id: number;
  project_id: number;
  slug: string;
  name: string;
  schedule_type: 'crontab' | 'interval';
  schedule_value: string;
  schedule_unit: string | null;
  timezone: string;
  checkin_margin: number;
  max_runtime: number;
  failure_issue_threshold: number;
  recovery_threshold: number;
  muted: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The columns a monitor's settings are written through. */
export type CronMonitorSettings = Pick<
  CronMonitorRow,
  | 'name'
  | 'schedule_type'
  | 'schedule_value'
  | 'schedule_unit'
  | 'timezone'
  | 'checkin_margin'
  | 'max_runtime'
  | 'failure_issue_threshold'
  | 'recovery_threshold'
  | 'muted'
>;

export interface MonitorEnvironmentRow {
  id: number;
  monitor_id: number;
  environment: string;
  status: EnvironmentStatus;
  next_expected_at: Date | null;
  deadline_at: Date | null;
  last_check_in_at: Date | null;
  consecutive_failures: number;
  consecutive_successes: number;
  incident_open: boolean;
}

export type MonitorEnvironmentChange = Partial<
  Omit<MonitorEnvironmentRow, 'id' | 'monitor_id' | 'environment'>
>;

const MONITOR_COLUMNS = `id, project_id, slug, name, schedule_type, schedule_value, schedule_unit, timezone,
  checkin_margin, max_runtime, failure_issue_threshold, recovery_threshold, muted, created_at, updated_at`;
const SETTING_COLUMNS = [
  'name',
  'schedule_type',
  'schedule_value',
  'schedule_unit',
  'timezone',
  'checkin_margin',
  'max_runtime',
  'failure_issue_threshold',
  'recovery_threshold',
  'muted',
] as const;
const ENVIRONMENT_COLUMNS = `id, monitor_id, environment, status, next_expected_at, deadline_at, last_check_in_at,
  consecutive_failures, consecutive_successes, incident_open`;
const ENVIRONMENT_CHANGE_COLUMNS = [
  'status',
  'next_expected_at',
  'deadline_at',
  'last_check_in_at',
  'consecutive_failures',
  'consecutive_successes',
  'incident_open',
] as const;

/**
 * First keys of the advisory locks (two-key form) under which a check-in counts before it creates:
 * the project's monitors (second key: the project), a monitor's environments (the monitor). Only
 * check-ins take them, first in their transaction, so that two creating at once cannot both pass
 * the cap.
 */
const MONITOR_CAP_LOCK_SPACE = 0x434d;
const ENVIRONMENT_CAP_LOCK_SPACE = 0x4345;

/** Cron monitors and their state per environment. */
@Injectable()
export class CronMonitorsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private db(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  list(projectId: number): Promise<CronMonitorRow[]> {
    return this.dataSource.query<CronMonitorRow[]>(
      `SELECT ${MONITOR_COLUMNS} FROM cron_monitors WHERE project_id = $1 ORDER BY name, id`,
      [projectId],
    );
  }

  async findBySlug(
    projectId: number,
    slug: string,
    manager?: EntityManager,
  ): Promise<CronMonitorRow | undefined> {
    const rows = await this.db(manager).query<CronMonitorRow[]>(
      `SELECT ${MONITOR_COLUMNS} FROM cron_monitors WHERE project_id = $1 AND slug = $2`,
      [projectId, slug],
    );
    return rows[0];
  }

  /** The new monitor, or undefined when the project has one of that slug already. */
  async insert(
    projectId: number,
    slug: string,
    settings: CronMonitorSettings,
  ): Promise<CronMonitorRow | undefined> {
    const rows = await this.dataSource.query<CronMonitorRow[]>(
      `INSERT INTO cron_monitors (project_id, slug, ${SETTING_COLUMNS.join(', ')})
       VALUES ($1, $2, ${SETTING_COLUMNS.map((_, i) => `$${i + 3}`).join(', ')})
       ON CONFLICT (project_id, slug) DO NOTHING
       RETURNING ${MONITOR_COLUMNS}`,
      [projectId, slug, ...SETTING_COLUMNS.map((column) => settings[column])],
    );
    return rows[0];
  }

  /**
   * Creates the monitor a check-in's `monitor_config` describes, or updates its schedule settings;
   * the name and `muted` of an existing monitor stay as they are.
   */
  async upsertFromConfig(
    manager: EntityManager,
    projectId: number,
    slug: string,
    settings: Omit<CronMonitorSettings, 'name' | 'muted'>,
  ): Promise<CronMonitorRow> {
    const columns = SETTING_COLUMNS.filter((column) => column !== 'name' && column !== 'muted');
    const rows = await manager.query<CronMonitorRow[]>(
      `INSERT INTO cron_monitors AS m (project_id, slug, name, ${columns.join(', ')})
       VALUES ($1, $2, $2, ${columns.map((_, i) => `$${i + 3}`).join(', ')})
       ON CONFLICT (project_id, slug) DO UPDATE SET
         ${columns.map((column) => `${column} = excluded.${column}`).join(', ')},
         updated_at = CASE WHEN (${columns.map((c) => `m.${c}`).join(', ')})
                         IS DISTINCT FROM (${columns.map((c) => `excluded.${c}`).join(', ')})
                      THEN now() ELSE m.updated_at END
       RETURNING ${MONITOR_COLUMNS}`,
      [projectId, slug, ...columns.map((column) => settings[column])],
    );
    return rows[0];
  }

  async update(id: number, change: Partial<CronMonitorSettings>): Promise<CronMonitorRow | undefined> {
    const columns = SETTING_COLUMNS.filter((column) => change[column] !== undefined);
    const rows = await this.dataSource.query<CronMonitorRow[]>(
      `UPDATE cron_monitors SET ${columns.map((column, i) => `${column} = $${i + 2}, `).join('')}updated_at = now()
       WHERE id = $1 RETURNING ${MONITOR_COLUMNS}`,
      [id, ...columns.map((column) => change[column])],
    );
    return (rows as unknown as [CronMonitorRow[], number])[0]?.[0];
  }

  async delete(id: number): Promise<void> {
    await this.dataSource.query(`DELETE FROM cron_monitors WHERE id = $1`, [id]);
  }

  environments(monitorIds: number[]): Promise<MonitorEnvironmentRow[]> {
    if (monitorIds.length === 0) return Promise.resolve([]);
    return this.dataSource.query<MonitorEnvironmentRow[]>(
      `SELECT ${ENVIRONMENT_COLUMNS} FROM cron_monitor_environments
       WHERE monitor_id = ANY($1::int[]) ORDER BY monitor_id, environment`,
      [monitorIds],
    );
  }

  /**
   * Whether a check-in may create one more monitor in the project: fewer than `cap` there. Holds the
   * project's creation lock until the caller's transaction ends, so that the monitor it then creates
   * is counted by the next check-in that asks. A statement of its own: the count's snapshot is taken
   * once the lock is granted, and sees a monitor committed meanwhile.
   */
  async mayCreateMonitor(manager: EntityManager, projectId: number, cap: number): Promise<boolean> {
    await manager.query(`SELECT pg_advisory_xact_lock($1::int, $2::int)`, [
      MONITOR_CAP_LOCK_SPACE,
      projectId,
    ]);
    const rows = await manager.query<{ below: boolean }[]>(
      `SELECT count(*) < $2 AS below FROM cron_monitors WHERE project_id = $1`,
      [projectId, cap],
    );
    return rows[0].below;
  }

  /**
   * Whether a check-in may use the environment: it exists, or the monitor has fewer than `cap`. The
   * monitor's creation lock is taken only for an environment not seen yet, and held until the
   * caller's transaction ends (the environment is created in it).
   */
  async mayUseEnvironment(
    manager: EntityManager,
    monitorId: number,
    environment: string,
    cap: number,
  ): Promise<boolean> {
    const exists = `SELECT 1 FROM cron_monitor_environments WHERE monitor_id = $1 AND environment = $2`;
    if ((await manager.query<unknown[]>(exists, [monitorId, environment])).length > 0) return true;
    await manager.query(`SELECT pg_advisory_xact_lock($1::int, $2::int)`, [
      ENVIRONMENT_CAP_LOCK_SPACE,
      monitorId,
    ]);
    const rows = await manager.query<{ present: boolean; count: number }[]>(
      `SELECT bool_or(environment = $2) AS present, count(*)::int AS count
         FROM cron_monitor_environments WHERE monitor_id = $1`,
      [monitorId, environment],
    );
    return rows[0].present === true || rows[0].count < cap;
  }

  /**
   * The monitor's state in the environment, created when it is the first check-in there, and locked
   * for the transaction: the check-ins of one monitor and environment, and the clock, take their turns.
   */
  async lockEnvironment(
    manager: EntityManager,
    monitorId: number,
    environment: string,
  ): Promise<MonitorEnvironmentRow> {
    await manager.query(
      `INSERT INTO cron_monitor_environments (monitor_id, environment) VALUES ($1, $2)
       ON CONFLICT (monitor_id, environment) DO NOTHING`,
      [monitorId, environment],
    );
    const rows = await manager.query<MonitorEnvironmentRow[]>(
      `SELECT ${ENVIRONMENT_COLUMNS} FROM cron_monitor_environments
       WHERE monitor_id = $1 AND environment = $2 FOR UPDATE`,
      [monitorId, environment],
    );
    return rows[0];
  }

  async lockEnvironmentById(manager: EntityManager, id: number): Promise<MonitorEnvironmentRow | undefined> {
    const rows = await manager.query<MonitorEnvironmentRow[]>(
      `SELECT ${ENVIRONMENT_COLUMNS} FROM cron_monitor_environments WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0];
  }

  async updateEnvironment(
    manager: EntityManager,
    id: number,
    change: MonitorEnvironmentChange,
  ): Promise<void> {
    const columns = ENVIRONMENT_CHANGE_COLUMNS.filter((column) => change[column] !== undefined);
    if (columns.length === 0) return;
    await manager.query(
      `UPDATE cron_monitor_environments SET ${columns.map((column, i) => `${column} = $${i + 2}`).join(', ')}
       WHERE id = $1`,
      [id, ...columns.map((column) => change[column])],
    );
  }

  /** Every environment's schedule is recomputed after the monitor's schedule changed. */
  async environmentsOf(manager: EntityManager, monitorId: number): Promise<MonitorEnvironmentRow[]> {
    return manager.query<MonitorEnvironmentRow[]>(
      `SELECT ${ENVIRONMENT_COLUMNS} FROM cron_monitor_environments WHERE monitor_id = $1 FOR UPDATE`,
      [monitorId],
    );
  }

  /** Environments whose deadline has passed, earliest first, skipping those another tick holds. */
  async dueEnvironmentIds(now: Date, limit: number): Promise<number[]> {
    const rows = await this.dataSource.query<{ id: number }[]>(
      `SELECT id FROM cron_monitor_environments WHERE deadline_at <= $1 ORDER BY deadline_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Of the given environments, those still due, with their monitors, locked for the transaction;
   * one a check-in holds is skipped (that check-in moves its deadline anyway).
   */
  async lockDue(
    manager: EntityManager,
    ids: number[],
    now: Date,
  ): Promise<{ env: MonitorEnvironmentRow; monitor: CronMonitorRow }[]> {
    const rows = await manager.query<(MonitorEnvironmentRow & { monitor: CronMonitorRow })[]>(
      `SELECT ${ENVIRONMENT_COLUMNS.split(',')
        .map((column) => `e.${column.trim()}`)
        .join(', ')}, to_jsonb(m) AS monitor
       FROM cron_monitor_environments e JOIN cron_monitors m ON m.id = e.monitor_id
       WHERE e.id = ANY($1::int[]) AND e.deadline_at <= $2
       ORDER BY e.deadline_at, e.id
       FOR UPDATE OF e SKIP LOCKED`,
      [ids, now],
    );
    return rows.map(({ monitor, ...env }) => ({
      env,
      monitor: {
        ...monitor,
        created_at: new Date(monitor.created_at),
        updated_at: new Date(monitor.updated_at),
      },
    }));
  }

  /** The clock's changes of many environments in one statement. */
  async updateMissed(
    manager: EntityManager,
    changes: {
      id: number;
      status: EnvironmentStatus;
      nextExpectedAt: Date;
      deadlineAt: Date;
      failures: number;
      incidentOpen: boolean;
    }[],
  ): Promise<void> {
    if (changes.length === 0) return;
    await manager.query(
      `UPDATE cron_monitor_environments e SET status = c.status, next_expected_at = c.next, deadline_at = c.deadline,
         consecutive_failures = c.failures, consecutive_successes = 0, incident_open = c.open
       FROM unnest($1::int[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::int[], $6::boolean[])
         AS c(id, status, next, deadline, failures, open)
       WHERE e.id = c.id`,
      [
        changes.map((change) => change.id),
        changes.map((change) => change.status),
        changes.map((change) => change.nextExpectedAt),
        changes.map((change) => change.deadlineAt),
        changes.map((change) => change.failures),
        changes.map((change) => change.incidentOpen),
      ],
    );
  }

  async findById(manager: EntityManager, id: number): Promise<CronMonitorRow | undefined> {
    const rows = await manager.query<CronMonitorRow[]>(
      `SELECT ${MONITOR_COLUMNS} FROM cron_monitors WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** The monitors among `ids`, with the worst state of their environments, for the status page. */
  async summariesByIds(
    ids: number[],
  ): Promise<{ id: number; project_id: number; name: string; statuses: string[] }[]> {
    if (ids.length === 0) return [];
    return this.dataSource.query(
      `SELECT m.id, m.project_id, m.name, coalesce(array_agg(e.status) FILTER (WHERE e.status IS NOT NULL), '{}') AS statuses
         FROM cron_monitors m LEFT JOIN cron_monitor_environments e ON e.monitor_id = m.id
        WHERE m.id = ANY($1::int[])
        GROUP BY m.id`,
      [ids],
    );
  }
}
