import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Access } from '../access/access';
import { Role, roleAtLeast } from '../access/roles';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { normaliseEmail, UsersService } from '../users/users.service';
import type { User } from '../users/user.entity';
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  NotFoundError,
} from '../common/domain-errors';
import { hashPassword, randomHex, sha256Hex } from '../common/crypto';
import { AppConfig } from '../config/app-config';
import { Mailer } from '../mail/mailer';
import { InvitationAccounts } from './invitation-accounts';
import { InvitationRow, InvitationsRepository } from './invitations.repository';
import { TeamsRepository } from './teams.repository';

export interface InvitationView {
  id: number;
  email: string;
  role: Role;
  team_ids: number[];
  invited_by: number | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  /** `pending`, or `expired` once its time is up (it can then only be revoked). */
  state: 'pending' | 'expired' | 'accepted' | 'revoked';
}

/** What the invitee's page shows before they accept. */
export interface InvitationPreview {
  email: string;
  role: Role;
  expires_at: string;
}

const SECRET = /^[0-9a-f]{64}$/;

/**
 * Invitations by e-mail: a link with a secret (only its hash is stored) that makes an account with
 * the invitation's role and teams, once, before it expires.
 */
@Injectable()
export class InvitationsService {
  private readonly logger = new Logger('Invitations');

  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly users: UsersService,
    private readonly teams: TeamsRepository,
    private readonly accounts: InvitationAccounts,
    private readonly mailer: Mailer,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async invite(
    access: Access,
    by: AuditActor,
    input: { email: string; role: Role; teamIds: number[] },
  ): Promise<InvitationView & { link: string; emailed: boolean }> {
    if (input.role === 'owner' && !roleAtLeast(access.role, 'owner')) {
      throw new ForbiddenError('only an owner can invite an owner');
    }
    const email = normaliseEmail(input.email);
    if (await this.users.findByEmail(email))
      throw new ConflictError('an account with this e-mail exists already');
    const teamIds = [...new Set(input.teamIds)];
    const existing = new Set(await this.teams.existing(teamIds));
    const unknown = teamIds.find((id) => !existing.has(id));
    if (unknown !== undefined) throw new InvalidInputError(`team_ids: no team has the id ${unknown}`);

    const secret = randomHex(32);
    const row = await this.invitations.insert({
      email,
      role: input.role,
      teamIds,
      tokenHash: sha256Hex(secret),
      invitedBy: access.userId,
      expiresAt: new Date(Date.now() + this.config.INVITATION_TTL_HOURS * 3_600_000),
    });
    const link = `${this.config.publicUrl.replace(/\/+$/, '')}/invitations/${secret}`;
    const emailed = await this.email(email, input.role, link, by.actor, row.expires_at);
    await this.audit.record(
      by,
      'invitation.create',
      { type: 'invitation', id: row.id },
      {
        email,
        role: input.role,
        team_ids: teamIds,
        emailed,
      },
    );
    return { ...toView(row), link, emailed };
  }

  async listOpen(): Promise<InvitationView[]> {
    return (await this.invitations.listOpen()).map(toView);
  }

  async revoke(by: AuditActor, id: number): Promise<void> {
    const revoked = await this.invitations.revoke(id);
    if (!revoked) throw new NotFoundError('invitation not found');
    await this.audit.record(by, 'invitation.revoke', { type: 'invitation', id }, { email: revoked.email });
  }

  async preview(secret: string): Promise<InvitationPreview> {
    const row = usable(
      SECRET.test(secret) ? await this.invitations.findByTokenHash(sha256Hex(secret)) : null,
    );
    return { email: row.email, role: row.role, expires_at: row.expires_at.toISOString() };
  }

  /**
   * Makes the invitee's account (with a password) and puts it on the invitation's teams, in one
   * transaction that holds the invitation: a link is used once, however many tabs submit it.
   */
  async accept(
    secret: string,
    input: { email: string; password: string; name: string },
    ip: string | undefined,
  ): Promise<User> {
    if (!SECRET.test(secret)) throw new NotFoundError('invitation not found');
    // Checked before the (slow, shared) hashing, so that made-up links cost it nothing.
    const early = usable(await this.invitations.findByTokenHash(sha256Hex(secret)));
    if (normaliseEmail(input.email) !== early.email) {
      throw new ForbiddenError('this invitation is for another e-mail address');
    }
    const passwordHash = await hashPassword(input.password);
    const user = await this.db.transaction(async (manager) => {
      const row = usable(await this.invitations.findByTokenHash(sha256Hex(secret), manager, true));
      if (normaliseEmail(input.email) !== row.email) {
        throw new ForbiddenError('this invitation is for another e-mail address');
      }
      const created = await this.accounts.create(manager, row, { name: input.name.trim(), passwordHash });
      return { created, invitationId: row.id };
    });
    await this.audit.record(
      { userId: user.created.id, tokenId: null, actor: user.created.email, ip: ip ?? null },
      'invitation.accept',
      { type: 'invitation', id: user.invitationId },
      { role: user.created.role },
    );
    return user.created;
  }

  /** Sends the link when SMTP is set up; without it, or when sending fails, the admin copies the link. */
  private async email(to: string, role: Role, link: string, from: string, expiresAt: Date): Promise<boolean> {
    if (!this.mailer.configured) return false;
    try {
      await this.mailer.send({
        to,
        subject: `You are invited to the error tracker`,
        text:
          `${from} invites you to the error tracker at ${this.config.publicUrl} as ${role === 'admin' ? 'an' : 'a'} ${role}.\n\n` +
          `Accept the invitation: ${link}\n\n` +
          `The link works once, until ${expiresAt.toUTCString()}.\n`,
      });
      return true;
    } catch (error) {
      this.logger.warn(`invitation e-mail to ${to} not sent: ${(error as Error).message}`);
      return false;
    }
  }
}

/** The invitation when it can still be accepted; a 404 or a 410 saying why not. */
function usable(row: InvitationRow | null): InvitationRow {
  if (!row) throw new NotFoundError('invitation not found');
  if (row.accepted_at) throw new GoneError('this invitation has been accepted already');
  if (row.revoked_at) throw new GoneError('this invitation has been revoked');
  if (row.expires_at.getTime() <= Date.now()) throw new GoneError('this invitation has expired');
  return row;
}

function toView(row: InvitationRow): InvitationView {
  const state = row.accepted_at
    ? 'accepted'
    : row.revoked_at
      ? 'revoked'
      : row.expires_at.getTime() <= Date.now()
        ? 'expired'
        : 'pending';
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    team_ids: row.team_ids,
    invited_by: row.invited_by,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    accepted_at: row.accepted_at?.toISOString() ?? null,
    state,
  };
}
