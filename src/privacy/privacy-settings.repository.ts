import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface PrivacySettingsRow {
  project_id: number;
  scrub_data: boolean;
  scrub_ip_addresses: boolean;
  sensitive_fields: string[];
  safe_fields: string[];
  updated_at: Date;
}

export type PrivacySettingsChange = Partial<
  Pick<PrivacySettingsRow, 'scrub_data' | 'scrub_ip_addresses' | 'sensitive_fields' | 'safe_fields'>
>;

const COLUMNS = 'project_id, scrub_data, scrub_ip_addresses, sensitive_fields, safe_fields, updated_at';

@Injectable()
export class PrivacySettingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The rows of the projects that have one; the others have the defaults. */
  async findMany(projectIds: number[]): Promise<PrivacySettingsRow[]> {
    if (projectIds.length === 0) return [];
    return this.dataSource.query<PrivacySettingsRow[]>(
      `SELECT ${COLUMNS} FROM project_privacy_settings WHERE project_id = ANY($1::int[])`,
      [projectIds],
    );
  }

  /** Applies the given fields over the current row (or the defaults) and returns the result. */
  async upsert(projectId: number, change: PrivacySettingsChange): Promise<PrivacySettingsRow> {
    const rows = await this.dataSource.query<PrivacySettingsRow[]>(
      `INSERT INTO project_privacy_settings AS s
              (project_id, scrub_data, scrub_ip_addresses, sensitive_fields, safe_fields)
       VALUES ($1, coalesce($2, true), coalesce($3, false), coalesce($4::text[], '{}'), coalesce($5::text[], '{}'))
       ON CONFLICT (project_id) DO UPDATE SET
         scrub_data = coalesce($2, s.scrub_data),
         scrub_ip_addresses = coalesce($3, s.scrub_ip_addresses),
         sensitive_fields = coalesce($4::text[], s.sensitive_fields),
         safe_fields = coalesce($5::text[], s.safe_fields),
         updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        projectId,
        change.scrub_data ?? null,
        change.scrub_ip_addresses ?? null,
        change.sensitive_fields ?? null,
        change.safe_fields ?? null,
      ],
    );
    return rows[0];
  }
}
