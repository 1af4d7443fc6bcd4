import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface QuotaSettingsRow {
  project_id: number;
  daily_quota: number | null;
  monthly_quota: number | null;
  daily_session_quota: number | null;
  spike_protection: boolean;
  updated_at: Date;
}

export type QuotaSettingsChange = Partial<
  Pick<QuotaSettingsRow, 'daily_quota' | 'monthly_quota' | 'daily_session_quota' | 'spike_protection'>
>;

/** What the minute job needs of every project to publish its limits. */
export interface ProjectLimitInputs {
  project_id: number;
  created_at: Date;
  daily_quota: number | null;
  monthly_quota: number | null;
  daily_session_quota: number | null;
  spike_protection: boolean;
  /** Events accepted in the baseline window (project_hourly, every environment). */
  recent_events: number;
}

export interface SpikeRow {
  id: number;
  project_id: number;
  started_at: Date;
  ended_at: Date | null;
  limit_per_hour: number;
  current_hour: Date;
  dropped_earlier: number;
  dropped_this_hour: number;
}

const COLUMNS = 'project_id, daily_quota, monthly_quota, daily_session_quota, spike_protection, updated_at';
const SPIKE_COLUMNS =
  'id, project_id, started_at, ended_at, limit_per_hour, current_hour, ' +
  'dropped_earlier::float8 AS dropped_earlier, dropped_this_hour::float8 AS dropped_this_hour';

/** project_quotas (settings) and project_spikes (each time spike protection engaged). */
@Injectable()
export class QuotasRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async find(projectId: number): Promise<QuotaSettingsRow | undefined> {
    const rows = await this.dataSource.query<QuotaSettingsRow[]>(
      `SELECT ${COLUMNS} FROM project_quotas WHERE project_id = $1`,
      [projectId],
    );
    return rows[0];
  }

  /**
   * Applies the given fields over the current row (or the defaults). A quota of null removes it,
   * undefined keeps it: `$n_set` says which.
   */
  async upsert(projectId: number, change: QuotaSettingsChange): Promise<QuotaSettingsRow> {
    const rows = await this.dataSource.query<QuotaSettingsRow[]>(
      `INSERT INTO project_quotas AS q (project_id, daily_quota, monthly_quota, spike_protection, daily_session_quota)
       VALUES ($1, $2::int, $4::int, coalesce($6, true), $7::int)
       ON CONFLICT (project_id) DO UPDATE SET
         daily_quota = CASE WHEN $3 THEN $2::int ELSE q.daily_quota END,
         monthly_quota = CASE WHEN $5 THEN $4::int ELSE q.monthly_quota END,
         spike_protection = coalesce($6, q.spike_protection),
         daily_session_quota = CASE WHEN $8 THEN $7::int ELSE q.daily_session_quota END,
         updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        projectId,
        change.daily_quota ?? null,
        change.daily_quota !== undefined,
        change.monthly_quota ?? null,
        change.monthly_quota !== undefined,
        change.spike_protection ?? null,
        change.daily_session_quota ?? null,
        change.daily_session_quota !== undefined,
      ],
    );
    return rows[0];
  }

  /** Every project's settings and its accepted events in [from, to). */
  async limitInputs(from: Date, to: Date): Promise<ProjectLimitInputs[]> {
    return this.dataSource.query<ProjectLimitInputs[]>(
      `SELECT p.id AS project_id, p.created_at, q.daily_quota, q.monthly_quota, q.daily_session_quota,
              coalesce(q.spike_protection, true) AS spike_protection,
              coalesce(h.events, 0)::float8 AS recent_events
         FROM projects p
         LEFT JOIN project_quotas q ON q.project_id = p.id
         LEFT JOIN (SELECT project_id, sum(count) AS events FROM project_hourly
                     WHERE hour >= $1 AND hour < $2 GROUP BY project_id) h ON h.project_id = p.id`,
      [from, to],
    );
  }

  /** The project's accepted events in [from, to), and its creation time. */
  async projectInputs(projectId: number, from: Date, to: Date): Promise<ProjectLimitInputs | undefined> {
    const rows = await this.dataSource.query<ProjectLimitInputs[]>(
      `SELECT p.id AS project_id, p.created_at, q.daily_quota, q.monthly_quota, q.daily_session_quota,
              coalesce(q.spike_protection, true) AS spike_protection,
              (SELECT coalesce(sum(count), 0) FROM project_hourly
                WHERE project_id = p.id AND hour >= $2 AND hour < $3)::float8 AS recent_events
         FROM projects p LEFT JOIN project_quotas q ON q.project_id = p.id WHERE p.id = $1`,
      [projectId, from, to],
    );
    return rows[0];
  }

  async openSpike(projectId: number): Promise<SpikeRow | undefined> {
    const rows = await this.dataSource.query<SpikeRow[]>(
      `SELECT ${SPIKE_COLUMNS} FROM project_spikes WHERE project_id = $1 AND ended_at IS NULL`,
      [projectId],
    );
    return rows[0];
  }

  async openSpikes(): Promise<SpikeRow[]> {
    return this.dataSource.query<SpikeRow[]>(
      `SELECT ${SPIKE_COLUMNS} FROM project_spikes WHERE ended_at IS NULL`,
    );
  }

  /** The new spike, or undefined when another run opened one first (the partial unique index). */
  async insertSpike(
    projectId: number,
    startedAt: Date,
    limit: number,
    hour: Date,
    dropped: number,
  ): Promise<SpikeRow | undefined> {
    const rows = await this.dataSource.query<SpikeRow[]>(
      `INSERT INTO project_spikes (project_id, started_at, limit_per_hour, current_hour, dropped_this_hour)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id) WHERE ended_at IS NULL DO NOTHING
       RETURNING ${SPIKE_COLUMNS}`,
      [projectId, startedAt, limit, hour, dropped],
    );
    return rows[0];
  }

  /** The hour's count; a new hour first adds the last one's final count to the earlier drops. */
  async updateSpike(
    id: number,
    hour: Date,
    limit: number,
    dropped: number,
    previousHourFinal: number | undefined,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE project_spikes SET
         dropped_earlier = CASE WHEN current_hour < $2
           THEN dropped_earlier + greatest(dropped_this_hour, coalesce($5::bigint, 0)) ELSE dropped_earlier END,
         dropped_this_hour = CASE WHEN current_hour < $2 THEN $4
           ELSE greatest(dropped_this_hour, $4) END,
         current_hour = greatest(current_hour, $2),
         limit_per_hour = $3
       WHERE id = $1`,
      [id, hour, limit, dropped, previousHourFinal ?? null],
    );
  }

  async closeSpike(id: number, endedAt: Date, finalCount: number | undefined): Promise<void> {
    await this.dataSource.query(
      `UPDATE project_spikes SET ended_at = $2,
         dropped_this_hour = greatest(dropped_this_hour, coalesce($3::bigint, 0))
       WHERE id = $1 AND ended_at IS NULL`,
      [id, endedAt, finalCount ?? null],
    );
  }

  async recentSpikes(projectId: number, limit: number): Promise<SpikeRow[]> {
    return this.dataSource.query<SpikeRow[]>(
      `SELECT ${SPIKE_COLUMNS} FROM project_spikes WHERE project_id = $1 ORDER BY started_at DESC LIMIT $2`,
      [projectId, limit],
    );
  }
}
