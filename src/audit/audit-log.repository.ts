import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface AuditEntryRow {
  id: string;
  created_at: Date;
  actor_user_id: number | null;
  actor_token_id: number | null;
  actor: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
}

export interface AuditEntryInsert {
  actorUserId: number | null;
  actorTokenId: number | null;
  actor: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  ip: string | null;
}

export interface AuditFilter {
  /** An action (`member.role_change`) or a family of them (`member`). */
  action?: string;
  actorUserId?: number;
  targetType?: string;
  targetId?: string;
  since?: Date;
  until?: Date;
  /** Entries older than this id (the previous page's last). */
  beforeId?: string;
  limit: number;
}

/** The audit log's table: appended to, read newest first, trimmed by retention. */
@Injectable()
export class AuditLogRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(entry: AuditEntryInsert): Promise<void> {
    await this.db.query(
      `INSERT INTO audit_log (actor_user_id, actor_token_id, actor, action, target_type, target_id, details, ip)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        entry.actorUserId,
        entry.actorTokenId,
        entry.actor,
        entry.action,
        entry.targetType,
        entry.targetId,
        JSON.stringify(entry.details),
        entry.ip,
      ],
    );
  }

  /** Newest first, one more than `limit` (to tell whether a next page exists). */
  async find(filter: AuditFilter): Promise<AuditEntryRow[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (condition: (placeholder: string) => string, value: unknown) => {
      values.push(value);
      where.push(condition(`$${values.length}`));
    };
    if (filter.action !== undefined) add((p) => `(action = ${p} OR action LIKE ${p} || '.%')`, filter.action);
    if (filter.actorUserId !== undefined) add((p) => `actor_user_id = ${p}`, filter.actorUserId);
    if (filter.targetType !== undefined) add((p) => `target_type = ${p}`, filter.targetType);
    if (filter.targetId !== undefined) add((p) => `target_id = ${p}`, filter.targetId);
    if (filter.since !== undefined) add((p) => `created_at >= ${p}`, filter.since);
    if (filter.until !== undefined) add((p) => `created_at < ${p}`, filter.until);
    if (filter.beforeId !== undefined) add((p) => `audit_log.id < ${p}::bigint`, filter.beforeId);
    values.push(filter.limit + 1);
    return this.db.query(
      `SELECT id::text AS id, created_at, actor_user_id, actor_token_id, actor, action, target_type, target_id,
              details, ip
         FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY audit_log.id DESC LIMIT $${values.length}`,
      values,
    );
  }

  /** Deletes up to `limit` entries older than `before`; returns how many. */
  async deleteOlderThan(before: Date, limit: number): Promise<number> {
    const [, count] = await this.db.query(
      `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE created_at < $1 LIMIT $2)`,
      [before, limit],
    );
    return count;
  }
}
