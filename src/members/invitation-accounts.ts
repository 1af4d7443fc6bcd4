import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import type { InvitationRow } from './invitations.repository';
import { InvitationsRepository } from './invitations.repository';
import { TeamsRepository } from './teams.repository';

/**
 * The account an accepted invitation makes (with a password, or through single sign-on): the
 * invitation's e-mail, role and teams, and the invitation used up, in the caller's transaction.
 */
@Injectable()
export class InvitationAccounts {
  constructor(
    private readonly users: UsersService,
    private readonly teams: TeamsRepository,
    private readonly invitations: InvitationsRepository,
  ) {}

  async create(
    manager: EntityManager,
    invitation: InvitationRow,
    account: { name: string; passwordHash: string | null; oidc?: { issuer: string; subject: string } },
  ): Promise<User> {
    const created = await this.users.create(
      { ...account, email: invitation.email, role: invitation.role },
      manager,
    );
    // Teams deleted since the invitation are skipped.
    for (const teamId of await this.teams.existing(invitation.team_ids)) {
      await this.teams.addMember(teamId, created.id, manager);
    }
    await this.invitations.markAccepted(manager, invitation.id, created.id);
    return created;
  }
}
