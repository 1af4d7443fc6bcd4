/**
 * What the members and teams pages share: their tabs, role helpers and team changes.
 */
import { personName, ROLE_LABELS } from '../access';
import { call, client, Member, Role, ROLES } from '../api';
import { Badge } from '../components';

export function MembersNav({ active }: { active: 'members' | 'teams' }) {
  return (
    <nav class="tabs" aria-label="Members sections">
      <a
        href="/members"
        class={active === 'members' ? 'tab active' : 'tab'}
        aria-current={active === 'members' ? 'page' : undefined}
      >
        Members
      </a>
      <a
        href="/members/teams"
        class={active === 'teams' ? 'tab active' : 'tab'}
        aria-current={active === 'teams' ? 'page' : undefined}
      >
        Teams
      </a>
    </nav>
  );
}

export function RoleBadge({ role }: { role: Role }) {
  return <Badge kind={`role-${role}`}>{ROLE_LABELS[role] ?? role}</Badge>;
}

export const ROLE_ARTICLES: Record<Role, string> = {
  owner: 'an owner',
  admin: 'an admin',
  member: 'a member',
  viewer: 'a viewer',
};

/** Active accounts first, then by name. */
export function byStanding(a: Member, b: Member): number {
  if (a.is_active !== b.is_active) return a.is_active ? -1 : 1;
  return personName(a).localeCompare(personName(b));
}

/** The roles `me` may hand out: only owners make owners. */
export function assignableRoles(myRole: Role): Role[] {
  return ROLES.filter((role) => role !== 'owner' || myRole === 'owner');
}

/** Adds a member or a project to a team. */
export function addToTeam(teamId: number, side: 'members' | 'projects', id: number): Promise<unknown> {
  return side === 'members'
    ? call(client.PUT('/api/teams/{id}/members/{userId}', { params: { path: { id: teamId, userId: id } } }))
    : call(client.PUT('/api/teams/{id}/projects/{projectId}', { params: { path: { id: teamId, projectId: id } } }));
}

/** Takes a member or a project out of a team. */
export function removeFromTeam(teamId: number, side: 'members' | 'projects', id: number): Promise<unknown> {
  return side === 'members'
    ? call(client.DELETE('/api/teams/{id}/members/{userId}', { params: { path: { id: teamId, userId: id } } }))
    : call(client.DELETE('/api/teams/{id}/projects/{projectId}', { params: { path: { id: teamId, projectId: id } } }));
}
