import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Role } from '../access/roles';

export interface InvitationRow {
  id: number;
  email: string;
  role: Role;
  team_ids: number[];
  invited_by: number | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: number | null;
  revoked_at: Date | null;
}

const COLUMNS = `id, email, role, team_ids, invited_by, created_at, expires_at, accepted_at, accepted_by, revoked_at`;

/** The invitations table. */
@Injectable()
export class InvitationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(invitation: {
    email: string;
    role: Role;
    teamIds: number[];
    tokenHash: string;
    invitedBy: number | null;
    expiresAt: Date;
  }): Promise<InvitationRow> {
    const rows: InvitationRow[] = await this.db.query(
      `INSERT INTO invitations (email, role, team_ids, token_hash, invited_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [
        invitation.email,
        invitation.role,
        invitation.teamIds,
        invitation.tokenHash,
        invitation.invitedBy,
        invitation.expiresAt,
      ],
    );
    return rows[0];
  }

  /** Neither accepted nor revoked (expired ones included: the list says so). */
  listOpen(): Promise<InvitationRow[]> {
    return this.db.query(
      `SELECT ${COLUMNS} FROM invitations WHERE accepted_at IS NULL AND revoked_at IS NULL ORDER BY id DESC`,
    );
  }

  async findByTokenHash(tokenHash: string, manager: EntityManager = this.db.manager, lock = false) {
    const rows: InvitationRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM invitations WHERE token_hash = $1${lock ? ' FOR UPDATE' : ''}`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  /** The newest invitation of an e-mail that can still be accepted, locked; null when none. */
  async findOpenByEmail(manager: EntityManager, email: string): Promise<InvitationRow | null> {
    const rows: InvitationRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM invitations
        WHERE email = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
        ORDER BY id DESC LIMIT 1 FOR UPDATE`,
      [email],
    );
    return rows[0] ?? null;
  }

  async markAccepted(manager: EntityManager, id: number, userId: number): Promise<void> {
    await manager.query('UPDATE invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1', [
      id,
      userId,
    ]);
  }

  /** Revokes an open invitation; null when there is no open one by that id. */
  async revoke(id: number): Promise<InvitationRow | null> {
    const [rows] = await this.db.query(
      `UPDATE invitations SET revoked_at = now() WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL
       RETURNING ${COLUMNS}`,
      [id],
    );
    return (rows as InvitationRow[])[0] ?? null;
  }
}
