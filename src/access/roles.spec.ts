import { decide, Grant, Permission, PERMISSIONS, permissionsOf, roleAtLeast, ROLES } from './roles';

const grant = (role: Grant['role'], limits: Partial<Grant> = {}): Grant => ({
  role,
  readOnly: false,
  narrowed: false,
  ...limits,
});

describe('roles', () => {
  it('orders the roles from viewer to owner', () => {
    expect(roleAtLeast('owner', 'admin')).toBe(true);
    expect(roleAtLeast('admin', 'owner')).toBe(false);
    expect(roleAtLeast('member', 'member')).toBe(true);
    expect(roleAtLeast('viewer', 'member')).toBe(false);
  });

  it.each<[Permission, Grant['role']]>([
    ['project:read', 'viewer'],
    ['members:read', 'viewer'],
    ['account', 'viewer'],
    ['project:triage', 'member'],
    ['project:write', 'member'],
    ['channels:read', 'member'],
    ['projects:admin', 'admin'],
    ['members:admin', 'admin'],
    ['channels:admin', 'admin'],
    ['audit:read', 'admin'],
    ['health:read', 'admin'],
  ])('gives %s to %s and up, and to no one below', (permission, weakest) => {
    for (const role of ROLES) {
      expect(decide(grant(role), permission, 'POST').allowed).toBe(roleAtLeast(role, weakest));
    }
  });

  it('says why it refuses', () => {
    expect(decide(grant('viewer'), 'project:triage', 'PATCH')).toEqual({
      allowed: false,
      reason: 'a viewer cannot triage issues',
    });
  });

  it('lets a read-only token read, and nothing else, whatever its role', () => {
    const readOnly = grant('owner', { readOnly: true });
    expect(decide(readOnly, 'project:read', 'GET').allowed).toBe(true);
    expect(decide(readOnly, 'audit:read', 'GET').allowed).toBe(true);
    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) {
      expect(decide(readOnly, 'project:read', method)).toEqual({
        allowed: false,
        reason: 'this token is read-only',
      });
      expect(decide(readOnly, 'account', method).allowed).toBe(false);
    }
  });

  it('keeps a token narrowed to projects to per-project permissions and reading its account', () => {
    const narrowed = grant('owner', { narrowed: true });
    for (const permission of Object.keys(PERMISSIONS) as Permission[]) {
      expect(decide(narrowed, permission, 'DELETE').allowed).toBe(PERMISSIONS[permission].perProject);
    }
    expect(decide(narrowed, 'account', 'GET').allowed).toBe(true);
    // It must not make itself a token without the limit.
    expect(decide(narrowed, 'account', 'POST').allowed).toBe(false);
  });

  it('lists the permissions a grant holds', () => {
    expect(permissionsOf(grant('viewer'))).toEqual(['account', 'project:read', 'members:read']);
    expect(permissionsOf(grant('owner'))).toEqual(Object.keys(PERMISSIONS));
    expect(permissionsOf(grant('admin', { narrowed: true }))).toEqual([
      'account',
      'project:read',
      'project:triage',
      'project:write',
    ]);
  });
});
