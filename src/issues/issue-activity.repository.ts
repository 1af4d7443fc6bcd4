import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/**
 * What happened to an issue: `resolved`, `reopened`, `muted`, `unmuted`, `regressed`, `merged`, …,
 * each with its details (`data`) and time, recorded in the transaction that made the change.
 */
export const ACTIVITY_KINDS = [
  'resolved',
  'reopened',
  'muted',
  'unmuted',
  'regressed',
  'merged',
  'assigned',
  'unassigned',
  'commented',
  'monitor_failed',
  'monitor_recovered',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Who did it: a member, an operator token, or (null) the tracker itself. */
export interface ActivityActor {
  userId: number | null;
  actor: string;
}

export interface ActivityEntry {
  issueId: number;
  kind: ActivityKind;
  data?: Record<string, unknown>;
  by?: ActivityActor | null;
}

export interface ActivityRow {
  id: string;
  kind: ActivityKind;
  data: Record<string, unknown>;
  created_at: Date;
  actor_user_id: number | null;
  actor: string | null;
  actor_email: string | null;
  actor_name: string | null;
}

@Injectable()
export class IssueActivityRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async record(manager: EntityManager, entries: ActivityEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await manager.query(
      `INSERT INTO issue_activity (issue_id, kind, data, actor_user_id, actor)
       SELECT * FROM unnest($1::int[], $2::text[], $3::jsonb[], $4::int[], $5::text[])`,
      [
        entries.map((entry) => entry.issueId),
        entries.map((entry) => entry.kind),
        entries.map((entry) => JSON.stringify(entry.data ?? {})),
        entries.map((entry) => entry.by?.userId ?? null),
        entries.map((entry) => entry.by?.actor ?? null),
      ],
    );
  }

  /** Whether the issue's log holds an entry of this kind whose `data.key` is `key` (a retried step's). */
  async hasKeyedEntry(
    manager: EntityManager,
    issueId: number,
    kind: ActivityKind,
    key: string,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM issue_activity WHERE issue_id = $1 AND kind = $2 AND data->>'key' = $3 LIMIT 1`,
      [issueId, kind, key],
    );
    return rows.length > 0;
  }

  /**
   * Rewrites what the log says of a comment (its excerpt after an edit, or that it was deleted),
   * wherever the entry is: on the issue, or on an issue merged into it (comments move, entries stay).
   */
  async rewriteCommentEntry(
    issueId: number,
    commentId: number,
    data: Record<string, unknown>,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE issue_activity SET data = $3::jsonb
        WHERE kind = 'commented' AND data->>'comment_id' = $2::text
          AND issue_id IN (SELECT id FROM issues WHERE id = $1 OR merged_into_id = $1)`,
      [issueId, commentId, JSON.stringify(data)],
    );
  }

  /** An issue's activity, oldest first, after the entry `after` (an id) when given. */
  list(issueId: number, limit: number, after?: string): Promise<ActivityRow[]> {
    return this.dataSource.query(
      `SELECT a.id::text AS id, a.kind, a.data, a.created_at, a.actor_user_id, a.actor,
              u.email AS actor_email, u.name AS actor_name
         FROM issue_activity a LEFT JOIN users u ON u.id = a.actor_user_id
        WHERE a.issue_id = $1 AND ($2::bigint IS NULL OR a.id > $2::bigint)
        ORDER BY a.id LIMIT $3`,
      [issueId, after ?? null, limit],
    );
  }
}
