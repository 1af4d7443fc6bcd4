import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/**
 * What happened to an issue: `resolved`, `reopened`, `muted`, `unmuted`, `regressed`, `merged`, …,
 * each with its details (`data`) and time, recorded in the transaction that made the change.
 */
export type ActivityKind = 'resolved' | 'reopened' | 'muted' | 'unmuted' | 'regressed' | 'merged';

export interface ActivityEntry {
  issueId: number;
  kind: ActivityKind;
  data?: Record<string, unknown>;
}

export interface ActivityRow {
  id: string;
  kind: ActivityKind;
  data: Record<string, unknown>;
  created_at: Date;
}

@Injectable()
export class IssueActivityRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async record(manager: EntityManager, entries: ActivityEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await manager.query(
      `INSERT INTO issue_activity (issue_id, kind, data)
       SELECT * FROM unnest($1::int[], $2::text[], $3::jsonb[])`,
      [
        entries.map((entry) => entry.issueId),
        entries.map((entry) => entry.kind),
        entries.map((entry) => JSON.stringify(entry.data ?? {})),
      ],
    );
  }

  /** An issue's activity, oldest first, after the entry `after` (an id) when given. */
  list(issueId: number, limit: number, after?: string): Promise<ActivityRow[]> {
    return this.dataSource.query(
      `SELECT id::text AS id, kind, data, created_at FROM issue_activity
        WHERE issue_id = $1 AND ($2::bigint IS NULL OR id > $2::bigint)
        ORDER BY id LIMIT $3`,
      [issueId, after ?? null, limit],
    );
  }
}
