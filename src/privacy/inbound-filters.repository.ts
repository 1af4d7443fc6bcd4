import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface InboundFiltersRow {
  project_id: number;
  browser_extensions: boolean;
  localhost: boolean;
  web_crawlers: boolean;
  legacy_browsers: string[];
  releases: string[];
  error_messages: string[];
  client_ips: string[];
  updated_at: Date;
}

export type InboundFiltersChange = Partial<Omit<InboundFiltersRow, 'project_id' | 'updated_at'>>;

const COLUMNS =
  'project_id, browser_extensions, localhost, web_crawlers, legacy_browsers, releases, error_messages, client_ips, updated_at';

@Injectable()
export class InboundFiltersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Every project's row (projects without one filter nothing): ingest's snapshot. */
  all(): Promise<InboundFiltersRow[]> {
    return this.dataSource.query<InboundFiltersRow[]>(`SELECT ${COLUMNS} FROM project_inbound_filters`);
  }

  async find(projectId: number): Promise<InboundFiltersRow | undefined> {
    const rows = await this.dataSource.query<InboundFiltersRow[]>(
      `SELECT ${COLUMNS} FROM project_inbound_filters WHERE project_id = $1`,
      [projectId],
    );
    return rows[0];
  }

  /** Applies the given fields over the current row (or no filters) and returns the result. */
  async upsert(projectId: number, change: InboundFiltersChange): Promise<InboundFiltersRow> {
    const rows = await this.dataSource.query<InboundFiltersRow[]>(
      `INSERT INTO project_inbound_filters AS f
              (project_id, browser_extensions, localhost, web_crawlers, legacy_browsers, releases,
               error_messages, client_ips)
       VALUES ($1, coalesce($2, false), coalesce($3, false), coalesce($4, false), coalesce($5::text[], '{}'),
               coalesce($6::text[], '{}'), coalesce($7::text[], '{}'), coalesce($8::text[], '{}'))
       ON CONFLICT (project_id) DO UPDATE SET
         browser_extensions = coalesce($2, f.browser_extensions),
         localhost = coalesce($3, f.localhost),
         web_crawlers = coalesce($4, f.web_crawlers),
         legacy_browsers = coalesce($5::text[], f.legacy_browsers),
         releases = coalesce($6::text[], f.releases),
         error_messages = coalesce($7::text[], f.error_messages),
         client_ips = coalesce($8::text[], f.client_ips),
         updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        projectId,
        change.browser_extensions ?? null,
        change.localhost ?? null,
        change.web_crawlers ?? null,
        change.legacy_browsers ?? null,
        change.releases ?? null,
        change.error_messages ?? null,
        change.client_ips ?? null,
      ],
    );
    return rows[0];
  }
}
