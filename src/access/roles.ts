/**
 * Who may do what: roles, the permissions routes declare, and the decision for one request.
 * Pure (the guard gathers the facts: the account's role, the token's limits, the visible projects).
 */

/** Weakest first. */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

interface PermissionRule {
  /** The weakest role that has it. */
  role: Role;
  /** Granted per project: a member or viewer has it on the projects of their teams only. */
  perProject: boolean;
  /** In words, for the 403. */
  describes: string;
}

export const PERMISSIONS = {
  /** One's own account: who one is, one's password, sessions, tokens and e-mail settings. */
  account: { role: 'viewer', perProject: false, describes: 'manage your own account' },
  'project:read': { role: 'viewer', perProject: true, describes: 'read projects' },
  /** Resolve, mute, merge, delete and (later) assign and comment on issues. */
  'project:triage': { role: 'member', perProject: true, describes: 'triage issues' },
  /** A project's settings, alert rules, releases and source maps. */
  'project:write': { role: 'member', perProject: true, describes: "change projects' settings" },
  /** Creating and deleting projects. */
  'projects:admin': { role: 'admin', perProject: false, describes: 'create or delete projects' },
  'members:read': { role: 'viewer', perProject: false, describes: 'see members and teams' },
  'members:admin': { role: 'admin', perProject: false, describes: 'manage members, teams and invitations' },
  /** Alert channels hold webhook addresses and headers: not for viewers. */
  'channels:read': { role: 'member', perProject: false, describes: 'see alert channels' },
  'channels:admin': { role: 'admin', perProject: false, describes: 'manage alert channels' },
  'audit:read': { role: 'admin', perProject: false, describes: 'read the audit log' },
  /** What readiness says beyond the statuses: the reasons, the queues, the worker processes. */
  'health:read': { role: 'admin', perProject: false, describes: 'read the readiness details' },
} as const satisfies Record<string, PermissionRule>;

export type Permission = keyof typeof PERMISSIONS;

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && Object.hasOwn(PERMISSIONS, value);
}

/** What a request's credentials allow, whatever the route. */
export interface Grant {
  role: Role;
  /** A token that may only read (GET and HEAD). */
  readOnly: boolean;
  /** A token narrowed to some projects: it may do per-project things there, and read its account. */
  narrowed: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `grant` may use a route that needs `permission` with `method`; the reason when not. */
export function decide(
  grant: Grant,
  permission: Permission,
  method: string,
): { allowed: true } | { allowed: false; reason: string } {
  const rule: PermissionRule = PERMISSIONS[permission];
  const safe = SAFE_METHODS.has(method.toUpperCase());
  if (grant.readOnly && !safe) return { allowed: false, reason: 'this token is read-only' };
  if (grant.narrowed && !rule.perProject && !(permission === 'account' && safe)) {
    return { allowed: false, reason: `this token is limited to some projects and cannot ${rule.describes}` };
  }
  if (!roleAtLeast(grant.role, rule.role)) {
    return { allowed: false, reason: `a ${grant.role} cannot ${rule.describes}` };
  }
  return { allowed: true };
}

/**
 * The permissions a grant holds (a read-only token holds them for reading only), for the dashboard
 * to show what can be done; the API decides again on every request.
 */
export function permissionsOf(grant: Grant): Permission[] {
  return (Object.keys(PERMISSIONS) as Permission[]).filter(
    (permission) => decide(grant, permission, 'GET').allowed,
  );
}
