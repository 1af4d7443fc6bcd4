import { Injectable } from '@nestjs/common';
import { roleAtLeast } from '../access/roles';
import { normaliseEmail, UsersService } from '../users/users.service';
import type { User } from '../users/user.entity';
import { InvalidInputError } from '../common/domain-errors';
import { AccessRepository } from '../access/access.repository';
import { TeamsRepository } from './teams.repository';

/** An assignee as the API takes it: `user:<id>`, `team:<id>`, an e-mail, or `#<team slug>`. */
export type AssigneeReference =
  | { kind: 'user'; id: number }
  | { kind: 'team'; id: number }
  | { kind: 'email'; email: string }
  | { kind: 'team_slug'; slug: string };

/** A member or a team, with how the activity log names them (an e-mail, `#slug`). */
export type Assignee = ({ userId: number } | { teamId: number }) & { label: string };

const ID = /^[1-9]\d{0,9}$/;

export function parseAssigneeReference(text: string): AssigneeReference {
  const [, kind, id] = /^(user|team):(.*)$/.exec(text) ?? [];
  if (kind !== undefined) {
    if (!ID.test(id) || Number(id) > 2_147_483_647) {
      throw new InvalidInputError(`assignee: ${JSON.stringify(text)} needs a ${kind} id after "${kind}:"`);
    }
    return { kind: kind as 'user' | 'team', id: Number(id) };
  }
  if (text.startsWith('#') && text.length > 1) return { kind: 'team_slug', slug: text.slice(1) };
  if (/^[^\s@]+@[^\s@]+$/.test(text)) return { kind: 'email', email: normaliseEmail(text) };
  throw new InvalidInputError(
    `assignee must be "user:<id>", "team:<id>", a member's e-mail, "#<team slug>" or null, not ${JSON.stringify(text)}`,
  );
}

/** Who may be put on an issue, and who a search's `assigned:` names. */
@Injectable()
export class Assignees {
  constructor(
    private readonly users: UsersService,
    private readonly teams: TeamsRepository,
    private readonly access: AccessRepository,
  ) {}

  /**
   * The member or team a reference names, who must be able to see the project: an active member
   * whose role or teams give them the project, or a team that has it.
   */
  async forProject(reference: AssigneeReference, projectId: number): Promise<Assignee> {
    if (reference.kind === 'user' || reference.kind === 'email') {
      const user =
        reference.kind === 'user'
          ? await this.users.findById(reference.id)
          : await this.users.findByEmail(reference.email);
      const named = reference.kind === 'user' ? `user:${reference.id}` : reference.email;
      if (!user || !user.isActive) throw new InvalidInputError(`assignee: no active member is ${named}`);
      if (!(await this.seesProject(user, projectId))) {
        throw new InvalidInputError(
          `assignee: ${user.email} cannot see this project (it is not on their teams)`,
        );
      }
      return { userId: user.id, label: user.email };
    }
    const team =
      reference.kind === 'team'
        ? await this.teams.find(reference.id)
        : await this.teams.findBySlug(reference.slug);
    const named = reference.kind === 'team' ? `team:${reference.id}` : `#${reference.slug}`;
    if (!team) throw new InvalidInputError(`assignee: no team is ${named}`);
    if (!team.project_ids.includes(projectId)) {
      throw new InvalidInputError(`assignee: team #${team.slug} does not have this project`);
    }
    return { teamId: team.id, label: `#${team.slug}` };
  }

  /** The account of an e-mail (for `assigned:<email>`); an InvalidInputError naming it when none. */
  async userIdOf(email: string): Promise<number> {
    const user = await this.users.findByEmail(email);
    if (!user) throw new InvalidInputError(`query: no member has the e-mail ${JSON.stringify(email)}`);
    return user.id;
  }

  /** The team of a slug (for `assigned:#slug`). */
  async teamIdOf(slug: string): Promise<number> {
    const team = await this.teams.findBySlug(slug);
    if (!team) throw new InvalidInputError(`query: no team has the slug ${JSON.stringify(slug)}`);
    return team.id;
  }

  /**
   * The members (with their e-mail settings) an assignment reaches: the member, or the team's; only
   * those who still see the project (access can be lost after the assignment).
   */
  async recipients(assignee: { userId: number } | { teamId: number }, projectId: number): Promise<User[]> {
    let users: User[];
    if ('userId' in assignee) {
      const user = await this.users.findById(assignee.userId);
      users = user ? [user] : [];
    } else {
      const team = await this.teams.find(assignee.teamId);
      users = team ? await this.users.findByIds(team.member_ids) : [];
    }
    const seeing: User[] = [];
    for (const user of users) if (await this.seesProject(user, projectId)) seeing.push(user);
    return seeing;
  }

  private async seesProject(user: User, projectId: number): Promise<boolean> {
    if (roleAtLeast(user.role, 'admin')) return true;
    return (await this.access.projectIdsOfUser(user.id)).includes(projectId);
  }
}
