import { Injectable, Logger } from '@nestjs/common';
import type { Access } from '../access/access';
import { encodeCursor, cursorFields, invalidCursor, Page } from '../common/pagination';
import { AuditEntryRow, AuditFilter, AuditLogRepository } from './audit-log.repository';
import type { AuditEntryView } from './dto/audit-entry.response';

export type { AuditEntryView };

/** What admins must be able to review (see docs/teams-and-access.md, Audit log). */
export type AuditAction =
  | 'auth.sign_in'
  | 'auth.sign_in_failed'
  | 'auth.password_change'
  | 'auth.password_change_failed'
  | 'auth.sso_link'
  | 'member.create'
  | 'invitation.create'
  | 'invitation.revoke'
  | 'invitation.accept'
  | 'member.role_change'
  | 'member.deactivate'
  | 'member.reactivate'
  | 'team.create'
  | 'team.rename'
  | 'team.delete'
  | 'team.member_add'
  | 'team.member_remove'
  | 'team.project_add'
  | 'team.project_remove'
  | 'token.create'
  | 'token.delete'
  | 'channel.create'
  | 'channel.update'
  | 'channel.delete'
  | 'rule.create'
  | 'rule.update'
  | 'rule.delete'
  | 'uptime_monitor.create'
  | 'uptime_monitor.update'
  | 'uptime_monitor.delete'
  | 'status_page.update'
  | 'project.create'
  | 'project.update'
  | 'project.data_protection_update'
  | 'project.key_rotate'
  | 'project.delete'
  | 'monitor.create'
  | 'monitor.update'
  | 'monitor.delete';

/** Who did it: the request's Access and address, or (sign-in) an account before it has a session. */
export interface AuditActor {
  userId: number | null;
  tokenId: number | null;
  actor: string;
  ip: string | null;
}

export function actorOf(access: Access, ip: string | undefined): AuditActor {
  return { userId: access.userId, tokenId: access.tokenId, actor: access.actor, ip: ip ?? null };
}

const ENTRY_ID = /^[1-9]\d{0,18}$/;
const MAX_ENTRY_ID = 9_223_372_036_854_775_807n;

@Injectable()
export class AuditLog {
  private readonly logger = new Logger('AuditLog');

  constructor(private readonly entries: AuditLogRepository) {}

  /**
   * Appends an entry, after the change it records has been made. Not in the change's transaction:
   * a change is never refused for want of its log line; a failure to write one is logged instead.
   */
  async record(
    by: AuditActor,
    action: AuditAction,
    target?: { type: string; id: number | string },
    details: Record<string, unknown> = {},
  ): Promise<void> {
    try {
      await this.entries.insert({
        actorUserId: by.userId,
        actorTokenId: by.tokenId,
        actor: by.actor,
        action,
        targetType: target?.type ?? null,
        targetId: target === undefined ? null : String(target.id),
        details,
        ip: by.ip,
      });
    } catch (error) {
      this.logger.error(
        { err: error, action },
        `audit entry ${action} not written: ${(error as Error).message}`,
      );
    }
  }

  async page(filter: Omit<AuditFilter, 'beforeId'> & { cursor?: string }): Promise<Page<AuditEntryView>> {
    const beforeId = filter.cursor === undefined ? undefined : decodeEntryCursor(filter.cursor);
    const rows = await this.entries.find({ ...filter, beforeId });
    const more = rows.length > filter.limit;
    const data = rows.slice(0, filter.limit).map(toView);
    return { data, next_cursor: more ? encodeCursor([data[data.length - 1].id]) : null };
  }

  /** Up to `limit` entries older than `before` (retention); returns how many. */
  deleteOlderThan(before: Date, limit: number): Promise<number> {
    return this.entries.deleteOlderThan(before, limit);
  }
}

function decodeEntryCursor(cursor: string): string {
  const fields = cursorFields(cursor);
  if (fields.length !== 1 || !ENTRY_ID.test(fields[0]) || BigInt(fields[0]) > MAX_ENTRY_ID)
    throw invalidCursor();
  return fields[0];
}

function toView(row: AuditEntryRow): AuditEntryView {
  return {
    id: row.id,
    created_at: row.created_at.toISOString(),
    actor: row.actor,
    actor_user_id: row.actor_user_id,
    actor_token_id: row.actor_token_id,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    details: row.details,
    ip: row.ip,
  };
}
