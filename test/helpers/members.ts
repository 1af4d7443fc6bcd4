import { randomUUID } from 'node:crypto';
import type { Response, Test } from 'supertest';
import type { TestApp } from './app';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';
/** Strongest first. */
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) <= ROLES.indexOf(minimum);
}

/** How a request authenticates: a dashboard session (`et_session=…`) or a bearer token. */
export type Credential = { cookie: string } | { token: string };

/** An account made through an invitation, signed in, with a personal token of its own. */
export interface Account {
  id: number;
  email: string;
  password: string;
  role: Role;
  /** `et_session=<secret>`, ready for a Cookie header. */
  cookie: string;
  token: string;
  tokenId: number;
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
export type Client = Record<Method, (path: string) => Test>;

/**
 * Requests made with `credential`. With a cookie they carry the app's own Origin, as the dashboard's
 * do, since the server refuses a change made with the cookie that does not show where it comes from;
 * `origin: null` leaves the header out, a string sends that one instead.
 */
export function as(t: TestApp, credential: Credential, options: { origin?: string | null } = {}): Client {
  const send = (method: Method, path: string): Test => {
    const request = t.http()[method](path);
    if ('token' in credential) return request.set('Authorization', `Bearer ${credential.token}`);
    request.set('Cookie', credential.cookie);
    const origin = options.origin === undefined ? t.url : options.origin;
    return origin === null ? request : request.set('Origin', origin);
  };
  return {
    get: (path) => send('get', path),
    post: (path) => send('post', path),
    patch: (path) => send('patch', path),
    put: (path) => send('put', path),
    delete: (path) => send('delete', path),
  };
}

/** The response when its status is `status`; otherwise an error naming the request and the body, to tell why. */
export async function expectStatus(request: Test, status: number): Promise<Response> {
  const response = await request;
  if (response.status !== status) {
    const { method, url } = response.request as unknown as { method: string; url: string };
    throw new Error(
      `${method} ${new URL(url).pathname}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`,
    );
  }
  return response;
}

/** `et_session=<secret>` from a response's Set-Cookie; fails when it sets none. */
export function sessionCookie(response: Response): string {
  const header = response.headers['set-cookie'] as string | string[] | undefined;
  const cookies = Array.isArray(header) ? header : header ? [header] : [];
  const cookie = cookies.find((value) => /^et_session=[0-9a-f]{64};/.test(value));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(header)}`);
  return cookie.split(';')[0];
}

export function uniqueEmail(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.com`;
}

/** The secret of an invitation link (its last path segment). */
export function secretOf(link: string): string {
  const secret = new URL(link).pathname.split('/').pop() ?? '';
  if (!/^[0-9a-f]{64}$/.test(secret)) throw new Error(`no invitation secret in ${link}`);
  return secret;
}

export async function signIn(t: TestApp, email: string, password: string): Promise<string> {
  return sessionCookie(await expectStatus(t.http().post('/auth/login').send({ email, password }), 200));
}

/**
 * An account of `role` made the way people join: `inviter` invites, the invitee accepts (which signs
 * them in), then makes a personal token from the dashboard session.
 */
export async function invitedAccount(
  t: TestApp,
  inviter: Client,
  role: Role,
  options: { teamIds?: number[]; name?: string; email?: string } = {},
): Promise<Account> {
  const email = options.email ?? uniqueEmail(role);
  const invitation = await expectStatus(
    inviter.post('/api/invitations').send({ email, role, team_ids: options.teamIds ?? [] }),
    201,
  );
  const password = `pw-${randomUUID()}`;
  const accepted = await expectStatus(
    t
      .http()
      .post(`/auth/invitations/${secretOf(invitation.body.link)}/accept`)
      .send({ email, password, name: options.name ?? `${role} person` }),
    201,
  );
  const cookie = sessionCookie(accepted);
  const created = await expectStatus(
    as(t, { cookie })
      .post('/api/tokens')
      .send({ description: `${role}'s own token` }),
    201,
  );
  return {
    id: accepted.body.id,
    email,
    password,
    role,
    cookie,
    token: created.body.token,
    tokenId: created.body.id,
  };
}
