import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface StatusPageRow {
  project_id: number;
  enabled: boolean;
  slug: string | null;
  title: string;
  uptime_monitor_ids: number[];
  cron_monitor_ids: number[];
  updated_at: Date;
}

export interface StatusPageSettings {
  enabled: boolean;
  slug: string | null;
  title: string;
  uptimeMonitorIds: number[];
  cronMonitorIds: number[];
}

/** One status page per project (a row only once its settings were saved). */
@Injectable()
export class StatusPagesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async find(projectId: number): Promise<StatusPageRow | undefined> {
    const rows: StatusPageRow[] = await this.dataSource.query(
      'SELECT * FROM status_pages WHERE project_id = $1',
      [projectId],
    );
    return rows[0];
  }

  /** The enabled page with this slug, if any: a disabled page is not found. */
  async findEnabled(slug: string): Promise<StatusPageRow | undefined> {
    const rows: StatusPageRow[] = await this.dataSource.query(
      'SELECT * FROM status_pages WHERE slug = $1 AND enabled',
      [slug],
    );
    return rows[0];
  }

  /** Another project's page that holds `slug`. */
  async slugTaken(slug: string, projectId: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM status_pages WHERE slug = $1 AND project_id <> $2',
      [slug, projectId],
    );
    return rows.length > 0;
  }

  async save(projectId: number, settings: StatusPageSettings): Promise<StatusPageRow> {
    const rows: StatusPageRow[] = await this.dataSource.query(
      `INSERT INTO status_pages (project_id, enabled, slug, title, uptime_monitor_ids, cron_monitor_ids)
       VALUES ($1, $2, $3, $4, $5::int[], $6::int[])
       ON CONFLICT (project_id) DO UPDATE SET
         enabled = EXCLUDED.enabled, slug = EXCLUDED.slug, title = EXCLUDED.title,
         uptime_monitor_ids = EXCLUDED.uptime_monitor_ids, cron_monitor_ids = EXCLUDED.cron_monitor_ids,
         updated_at = now()
       RETURNING *`,
      [
        projectId,
        settings.enabled,
        settings.slug,
        settings.title,
        settings.uptimeMonitorIds,
        settings.cronMonitorIds,
      ],
    );
    return rows[0];
  }
}
