import { Injectable } from '@nestjs/common';
import type { Access } from '../access/access';
import { Role, roleAtLeast } from '../access/roles';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { SessionsService } from '../users/sessions.service';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../common/domain-errors';
import { TeamsRepository } from './teams.repository';

export interface MemberView {
  id: number;
  email: string;
  name: string;
  role: Role;
  is_active: boolean;
  deactivated_at: string | null;
  created_at: string;
  team_ids: number[];
  /** Signs in through the identity provider. */
  sso: boolean;
}

export interface MemberChange {
  role?: Role;
  isActive?: boolean;
  name?: string;
}

/** The accounts as their admins see them: roles, deactivation, and who may change whom. */
@Injectable()
export class MembersService {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly teams: TeamsRepository,
    private readonly audit: AuditLog,
  ) {}

  async list(): Promise<MemberView[]> {
    const [users, memberships] = await Promise.all([this.users.list(), this.teams.memberships()]);
    return users.map((user) => toMemberView(user, memberships.get(user.id) ?? []));
  }

  async get(id: number): Promise<MemberView> {
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundError('member not found');
    return toMemberView(user, await this.teams.teamIdsOfUser(id));
  }

  /**
   * Owners are changed (and made) by owners only, and the last active owner stays one; nobody changes their
   * own role or deactivates themselves (another admin must).
   */
  async update(access: Access, by: AuditActor, id: number, change: MemberChange): Promise<MemberView> {
    if (id === access.userId && (change.role !== undefined || change.isActive === false)) {
      throw new InvalidInputError('you cannot change your own role or deactivate yourself');
    }
    const result = await this.users.change(id, (user, activeOwners) => {
      // An owner's account is an owner's business, whatever the change (a name included).
      if ((user.role === 'owner' || change.role === 'owner') && !roleAtLeast(access.role, 'owner')) {
        throw new ForbiddenError('only an owner can change an owner or make one');
      }
      const stopsBeingOwner =
        user.role === 'owner' &&
        user.isActive &&
        ((change.role !== undefined && change.role !== 'owner') || change.isActive === false);
      if (stopsBeingOwner && activeOwners <= 1) {
        throw new ConflictError(
          'the last active owner cannot be demoted or deactivated: make another owner first',
        );
      }
      return {
        ...(change.role !== undefined ? { role: change.role } : {}),
        ...(change.isActive !== undefined ? { isActive: change.isActive } : {}),
        ...(change.name !== undefined ? { name: change.name.trim() } : {}),
      };
    });
    if (!result) throw new NotFoundError('member not found');
    const { before, after } = result;
    const target = { type: 'member', id };
    if (before.role !== after.role) {
      await this.audit.record(by, 'member.role_change', target, {
        email: after.email,
        from: before.role,
        to: after.role,
      });
    }
    if (before.isActive && !after.isActive) {
      // Its sessions are refused from now on anyway; a later reactivation must not bring them back.
      await this.sessions.endAllOf(id);
      await this.audit.record(by, 'member.deactivate', target, { email: after.email });
    }
    if (!before.isActive && after.isActive) {
      await this.audit.record(by, 'member.reactivate', target, { email: after.email });
    }
    return toMemberView(after, await this.teams.teamIdsOfUser(id));
  }
}

function toMemberView(user: User, teamIds: number[]): MemberView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    is_active: user.isActive,
    deactivated_at: user.deactivatedAt?.toISOString() ?? null,
    created_at: user.createdAt.toISOString(),
    team_ids: teamIds,
    sso: user.oidcSubject !== null,
  };
}
