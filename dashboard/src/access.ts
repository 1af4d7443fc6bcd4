import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me, Permission, Role } from './api';

/** Permissions that change something: a read-only token holds them for reading only. */
const WRITING: ReadonlySet<Permission> = new Set([
  'project:triage',
  'project:write',
  'projects:admin',
  'members:admin',
  'channels:admin',
]);

export interface Session {
  me: Me;
  /** After the account changed (its name, its settings), what /auth/me now answers. */
  setMe: (me: Me) => void;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in account; only pages shown after sign-in use it. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in app');
  return session;
}

export function useMe(): Me {
  return useSession().me;
}

/**
 * Whether the dashboard offers what needs `permission`. Only to hide what would be refused: the API
 * decides again on every request.
 */
export function can(me: Me, permission: Permission): boolean {
  if (!me.permissions.includes(permission)) return false;
  return !(me.read_only && WRITING.has(permission));
}

export function useCan(): (permission: Permission) => boolean {
  const me = useMe();
  return (permission) => can(me, permission);
}

export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
  viewer: 'Viewer',
};

/** What each role may do, in a sentence: for the role pickers. */
export const ROLE_HINTS: Record<Role, string> = {
  owner: 'everything, including managing other owners',
  admin: 'members, teams, projects, alert channels and the audit log',
  member: "resolve, assign and comment on issues, and change the settings of their teams' projects",
  viewer: "see the issues and events of their teams' projects, without changing anything",
};

/** An account's name as shown: its name, else its e-mail. */
export function personName(
  person: { name?: string | null; email?: string | null } | null | undefined,
): string {
  if (!person) return 'Someone';
  return person.name?.trim() || person.email || 'Someone';
}
