/**
 * Accounts of a team: invitations, deactivation, owners, passwords and sessions, scoped tokens and
 * the audit log that records all of it. Real server, PostgreSQL and Redis.
 */
import { Queue } from 'bullmq';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { startTestApp, TestApp } from './helpers/app';
import {
  Account,
  as,
  expectStatus,
  invitedAccount,
  secretOf,
  sessionCookie,
  signIn,
  uniqueEmail,
} from './helpers/members';
import { enqueueEvent, openQueue, storedEvent } from './helpers/queues';

const PUBLIC_URL = 'https://errors.example.com';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const HOUR_MS = 3_600_000;
const MASKED = /^[0-9a-f]{8}\.\.\.\*\*\*\*$/;

interface MemberView {
  id: number;
  email: string;
  name: string;
  role: string;
  is_active: boolean;
  deactivated_at: string | null;
  created_at: string;
  team_ids: number[];
  sso: boolean;
}

interface TokenView {
  id: number;
  token: string;
  description: string;
  user_id: number | null;
  read_only: boolean;
  project_ids: number[] | null;
}

interface AuditEntry {
  id: string;
  created_at: string;
  actor: string;
  actor_user_id: number | null;
  actor_token_id: number | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
}

describe('members, invitations, sessions and tokens', () => {
  let t: TestApp;
  let db: DataSource;
  let digest: Queue;
  let owner: Account;
  let admin: Account;
  /** On the team Core, which has project `seen`; `unseen` is on no team. */
  let coreId: number;
  let seen: { id: number };
  let unseen: { id: number };
  let seenIssueId: number;
  /** An issue of `unseen`: out of sight of everyone on Core. */
  let unseenIssueId: number;

  const operator = () => as(t, { token: t.token });
  const bySession = (account: Pick<Account, 'cookie'>) => as(t, { cookie: account.cookie });
  const byToken = (token: string) => as(t, { token });

  function invite(by: Account | 'operator', body: object) {
    return (by === 'operator' ? operator() : bySession(by)).post('/api/invitations').send(body);
  }

  function accept(secret: string, body: object) {
    return t.http().post(`/auth/invitations/${secret}/accept`).send(body);
  }

  async function member(id: number): Promise<MemberView | undefined> {
    const listed = await expectStatus(operator().get('/api/members'), 200);
    return (listed.body.data as MemberView[]).find((each) => each.id === id);
  }

  async function audit(query: string, by: Account = admin): Promise<AuditEntry[]> {
    return (await expectStatus(bySession(by).get(`/api/audit-log?${query}`), 200)).body.data;
  }

  beforeAll(async () => {
    // Many sign-ins come from one address here; the throttle is tested elsewhere.
    t = await startTestApp({ PUBLIC_URL, LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '0' });
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
    seen = (
      await expectStatus(
        operator()
          .post('/api/projects')
          .send({ name: `Seen ${randomUUID()}` }),
        201,
      )
    ).body;
    unseen = (
      await expectStatus(
        operator()
          .post('/api/projects')
          .send({ name: `Unseen ${randomUUID()}` }),
        201,
      )
    ).body;
    coreId = (
      await expectStatus(
        operator()
          .post('/api/teams')
          .send({ name: `Core ${randomUUID()}` }),
        201,
      )
    ).body.id;
    await expectStatus(operator().put(`/api/teams/${coreId}/projects/${seen.id}`), 204);
    const eventId = await enqueueEvent(digest, seen.id, {
      exception: { values: [{ type: 'TriageMe', value: 'triage me', stacktrace: { frames: [] } }] },
      level: 'error',
    });
    seenIssueId = (await storedEvent(t, eventId)).issue_id;
    const unseenEventId = await enqueueEvent(digest, unseen.id, {
      exception: { values: [{ type: 'HiddenError', value: 'out of sight', stacktrace: { frames: [] } }] },
      level: 'error',
    });
    unseenIssueId = (await storedEvent(t, unseenEventId)).issue_id;
    owner = await invitedAccount(t, operator(), 'owner');
    admin = await invitedAccount(t, operator(), 'admin');
  }, 120_000);
  afterAll(async () => {
    await digest?.close();
    await t?.close();
  });

  describe('invitations', () => {
    it('make an account with the invited role that joins the teams, through a link that works once', async () => {
      const email = uniqueEmail('newcomer');
      const before = Date.now();
      const created = await expectStatus(invite(admin, { email, role: 'member', team_ids: [coreId] }), 201);
      expect(created.body).toMatchObject({
        id: expect.any(Number),
        email,
        role: 'member',
        team_ids: [coreId],
        created_at: expect.stringMatching(ISO),
        expires_at: expect.stringMatching(ISO),
        invited_by: admin.id,
        accepted_at: null,
        link: expect.stringMatching(/^https:\/\/errors\.example\.com\/invitations\/[0-9a-f]{64}$/),
        // No SMTP here: the admin passes the link on.
        emailed: false,
      });
      // Seven days by default.
      const expiresAt = Date.parse(created.body.expires_at);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 168 * HOUR_MS - 1_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 168 * HOUR_MS + 1_000);
      const secret = secretOf(created.body.link);

      const pending = await expectStatus(bySession(admin).get('/api/invitations'), 200);
      const listed = (pending.body.data as { id: number }[]).find((each) => each.id === created.body.id);
      expect(listed).toMatchObject({ id: created.body.id, email, role: 'member', team_ids: [coreId] });
      expect(listed).not.toHaveProperty('link');
      expect(JSON.stringify(pending.body)).not.toContain(secret);

      await t
        .http()
        .get(`/auth/invitations/${secret}`)
        .expect(200, { email, role: 'member', expires_at: created.body.expires_at });

      const accepted = await accept(secret, { email, password: 'long enough', name: 'Ada Newcomer' }).expect(
        201,
      );
      expect(accepted.body).toEqual({ id: expect.any(Number), email, role: 'member' });
      const cookie = sessionCookie(accepted);
      const me = await expectStatus(bySession({ cookie }).get('/auth/me'), 200);
      expect(me.body).toMatchObject({
        kind: 'user',
        id: accepted.body.id,
        email,
        name: 'Ada Newcomer',
        role: 'member',
      });
      expect(me.body.project_ids).toEqual([seen.id]);

      expect(await member(accepted.body.id)).toEqual({
        id: accepted.body.id,
        email,
        name: 'Ada Newcomer',
        role: 'member',
        is_active: true,
        deactivated_at: null,
        created_at: expect.stringMatching(ISO),
        team_ids: [coreId],
        sso: false,
      });
      const team = await expectStatus(operator().get(`/api/teams/${coreId}`), 200);
      expect(team.body.member_ids).toContain(accepted.body.id);
      await bySession({ cookie }).get(`/api/projects/${seen.id}`).expect(200);
      await bySession({ cookie })
        .get(`/api/projects/${unseen.id}`)
        .expect(404, { error: 'project not found' });

      // Used up: neither shown nor accepted again, and gone from the pending list.
      await t.http().get(`/auth/invitations/${secret}`).expect(410);
      await accept(secret, { email, password: 'another password' }).expect(410);
      const after = await expectStatus(bySession(admin).get('/api/invitations'), 200);
      expect((after.body.data as { id: number }[]).map((each) => each.id)).not.toContain(created.body.id);
      // The password chosen at acceptance signs in.
      await signIn(t, email, 'long enough');
      await t.http().post('/auth/login').send({ email, password: 'another password' }).expect(401);
    });

    it('answers 410 for an expired invitation, and makes no account', async () => {
      const email = uniqueEmail('late');
      const created = await expectStatus(invite(admin, { email, role: 'viewer' }), 201);
      await db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
        created.body.id,
      ]);
      const secret = secretOf(created.body.link);
      const preview = await t.http().get(`/auth/invitations/${secret}`);
      expect({ status: preview.status, body: preview.body }).toEqual({
        status: 410,
        body: { error: expect.any(String) },
      });
      await accept(secret, { email, password: 'long enough' }).expect(410);
      const members = await expectStatus(operator().get('/api/members'), 200);
      expect((members.body.data as MemberView[]).map((each) => each.email)).not.toContain(email);
      await t.http().post('/auth/login').send({ email, password: 'long enough' }).expect(401);
    });

    it('answers 410 for a revoked invitation, and 404 for a secret that was never issued', async () => {
      const email = uniqueEmail('revoked');
      const created = await expectStatus(invite(admin, { email, role: 'member' }), 201);
      const secret = secretOf(created.body.link);
      await t.http().get(`/auth/invitations/${secret}`).expect(200);
      await bySession(admin).delete(`/api/invitations/${created.body.id}`).expect(204);
      await t.http().get(`/auth/invitations/${secret}`).expect(410);
      await accept(secret, { email, password: 'long enough' }).expect(410);
      const pending = await expectStatus(bySession(admin).get('/api/invitations'), 200);
      expect((pending.body.data as { id: number }[]).map((each) => each.id)).not.toContain(created.body.id);

      const never = randomBytes(32).toString('hex');
      await t.http().get(`/auth/invitations/${never}`).expect(404);
      await accept(never, { email, password: 'long enough' }).expect(404);
    });

    it('refuses another e-mail than the invited one, and still accepts the right one afterwards', async () => {
      const email = uniqueEmail('invited');
      const created = await expectStatus(invite(admin, { email, role: 'viewer' }), 201);
      const secret = secretOf(created.body.link);
      const wrong = await accept(secret, { email: uniqueEmail('someone-else'), password: 'long enough' });
      expect({ status: wrong.status, body: wrong.body }).toEqual({
        status: 403,
        body: { error: expect.any(String) },
      });
      expect(wrong.headers['set-cookie']).toBeUndefined();
      // A password below 8 characters is refused before anything is used up.
      await accept(secret, { email, password: 'short' }).expect(400);
      const right = await accept(secret, { email, password: 'long enough' }).expect(201);
      expect(right.body).toEqual({ id: expect.any(Number), email, role: 'viewer' });
    });

    it('lets only an owner invite an owner, and refuses an e-mail that has an account or bad input', async () => {
      const forbidden = await invite(admin, { email: uniqueEmail('boss'), role: 'owner' });
      expect({ status: forbidden.status, body: forbidden.body }).toEqual({
        status: 403,
        body: { error: expect.any(String) },
      });
      const byOwner = await expectStatus(invite(owner, { email: uniqueEmail('boss'), role: 'owner' }), 201);
      expect(byOwner.body).toMatchObject({ role: 'owner', invited_by: owner.id });

      for (const taken of [admin.email, admin.email.toUpperCase()]) {
        const conflict = await invite(admin, { email: taken, role: 'viewer' });
        expect({ status: conflict.status, body: conflict.body }).toEqual({
          status: 409,
          body: { error: expect.any(String) },
        });
      }
      await invite(admin, { email: uniqueEmail('x'), role: 'superuser' }).then((r) =>
        expect(r.status).toBe(400),
      );
      await invite(admin, { email: 'not-an-e-mail', role: 'viewer' }).then((r) => expect(r.status).toBe(400));
      await invite(admin, { role: 'viewer' }).then((r) => expect(r.status).toBe(400));
    });
  });

  describe('deactivation', () => {
    it('ends the sessions and stops the tokens at once, refuses sign-in, and reactivation lets them back', async () => {
      const person = await invitedAccount(t, operator(), 'member', { teamIds: [coreId] });
      const second = await signIn(t, person.email, person.password);
      await bySession(person).get('/auth/me').expect(200);
      await byToken(person.token).get('/api/projects').expect(200);

      const deactivated = await expectStatus(
        bySession(admin).patch(`/api/members/${person.id}`).send({ is_active: false }),
        200,
      );
      expect(deactivated.body).toMatchObject({
        id: person.id,
        is_active: false,
        deactivated_at: expect.stringMatching(ISO),
        role: 'member',
      });
      await bySession(person).get('/auth/me').expect(401);
      await bySession({ cookie: second }).get('/api/projects').expect(401);
      await byToken(person.token).get('/api/projects').expect(401);
      await t.http().post('/auth/login').send({ email: person.email, password: person.password }).expect(401);
      expect(await member(person.id)).toMatchObject({ is_active: false });

      const reactivated = await expectStatus(
        bySession(admin).patch(`/api/members/${person.id}`).send({ is_active: true }),
        200,
      );
      expect(reactivated.body).toMatchObject({ id: person.id, is_active: true, deactivated_at: null });
      // Sessions ended by the deactivation stay ended; tokens are the account's again.
      await bySession(person).get('/auth/me').expect(401);
      await bySession({ cookie: second }).get('/auth/me').expect(401);
      await byToken(person.token).get(`/api/projects/${seen.id}`).expect(200);
      const back = await signIn(t, person.email, person.password);
      await bySession({ cookie: back }).get('/auth/me').expect(200);
    });

    it('refuses changing your own role or deactivating yourself', async () => {
      const role = await bySession(admin).patch(`/api/members/${admin.id}`).send({ role: 'member' });
      expect({ status: role.status, body: role.body }).toEqual({
        status: 400,
        body: { error: expect.any(String) },
      });
      await bySession(admin).patch(`/api/members/${admin.id}`).send({ is_active: false }).expect(400);
      await byToken(admin.token).patch(`/api/members/${admin.id}`).send({ role: 'viewer' }).expect(400);
      expect(await member(admin.id)).toMatchObject({ role: 'admin', is_active: true });
      await bySession(admin).get('/auth/me').expect(200);
    });
  });

  describe('owners', () => {
    it('lets an admin change neither an owner nor make one', async () => {
      const person = await invitedAccount(t, operator(), 'member');
      for (const change of [{ role: 'admin' }, { role: 'member' }, { is_active: false }]) {
        const refused = await bySession(admin).patch(`/api/members/${owner.id}`).send(change);
        expect({ status: refused.status, body: refused.body }).toEqual({
          status: 403,
          body: { error: expect.any(String) },
        });
      }
      await bySession(admin).patch(`/api/members/${person.id}`).send({ role: 'owner' }).expect(403);
      await byToken(admin.token).patch(`/api/members/${person.id}`).send({ role: 'owner' }).expect(403);
      expect(await member(owner.id)).toMatchObject({ role: 'owner', is_active: true });
      expect(await member(person.id)).toMatchObject({ role: 'member' });
      // What an admin may do to a non-owner.
      const promoted = await expectStatus(
        bySession(admin).patch(`/api/members/${person.id}`).send({ role: 'admin' }),
        200,
      );
      expect(promoted.body).toMatchObject({ id: person.id, role: 'admin' });
      // And an owner may make an owner.
      await expectStatus(bySession(owner).patch(`/api/members/${person.id}`).send({ role: 'owner' }), 200);
      expect(await member(person.id)).toMatchObject({ role: 'owner' });
      await expectStatus(bySession(owner).patch(`/api/members/${person.id}`).send({ role: 'viewer' }), 200);
    });

    it('lets an admin rename an owner no more than change its role (any change to an owner is an owner’s)', async () => {
      const before = await member(owner.id);
      const refused = await bySession(admin)
        .patch(`/api/members/${owner.id}`)
        .send({ name: 'Renamed by an admin' });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 403,
        body: { error: expect.any(String) },
      });
      expect((await member(owner.id))?.name).toBe(before?.name);
    });

    it('keeps the last active owner from being demoted or deactivated', async () => {
      // Other files of the run share the database and make owners of their own: set them aside, so
      // that this file's owner is the only active one.
      const others: { id: number }[] = await db.query(
        `SELECT id FROM users WHERE role = 'owner' AND is_active AND id <> $1`,
        [owner.id],
      );
      const otherIds = others.map((row) => row.id);
      await db.query('UPDATE users SET is_active = false WHERE id = ANY($1::int[])', [otherIds]);
      try {
        for (const change of [{ role: 'admin' }, { is_active: false }]) {
          const refused = await operator().patch(`/api/members/${owner.id}`).send(change);
          expect({ status: refused.status, body: refused.body }).toEqual({
            status: 409,
            body: { error: expect.any(String) },
          });
        }
        expect(await member(owner.id)).toMatchObject({ role: 'owner', is_active: true });
        await bySession(owner).get('/auth/me').expect(200);

        // With a second owner, the first may step down; the second is then the last.
        const successor = await invitedAccount(t, bySession(owner), 'owner');
        await expectStatus(operator().patch(`/api/members/${owner.id}`).send({ role: 'admin' }), 200);
        await operator().patch(`/api/members/${successor.id}`).send({ role: 'member' }).expect(409);
        await operator().patch(`/api/members/${successor.id}`).send({ is_active: false }).expect(409);
        expect(await member(successor.id)).toMatchObject({ role: 'owner', is_active: true });
        await expectStatus(
          bySession(successor).patch(`/api/members/${owner.id}`).send({ role: 'owner' }),
          200,
        );
        // Two owners again: one of them may now be deactivated.
        await expectStatus(
          bySession(owner).patch(`/api/members/${successor.id}`).send({ is_active: false }),
          200,
        );
        await operator().patch(`/api/members/${owner.id}`).send({ is_active: false }).expect(409);
      } finally {
        await db.query('UPDATE users SET is_active = true WHERE id = ANY($1::int[])', [otherIds]);
      }
    });
  });

  describe('passwords and sessions', () => {
    it('ends the other sessions when the password changes, and keeps the one that changed it', async () => {
      const person = await invitedAccount(t, operator(), 'viewer');
      const other = await signIn(t, person.email, person.password);
      const wrong = await bySession(person)
        .post('/auth/password')
        .send({ current_password: 'not the password', new_password: 'brand new password' });
      expect({ status: wrong.status, body: wrong.body }).toEqual({
        status: 400,
        body: { error: expect.any(String) },
      });
      await bySession({ cookie: other }).get('/auth/me').expect(200);
      await bySession(person)
        .post('/auth/password')
        .send({ current_password: person.password, new_password: 'short' })
        .expect(400);

      await bySession(person)
        .post('/auth/password')
        .send({ current_password: person.password, new_password: 'brand new password' })
        .expect(204);
      await bySession(person).get('/auth/me').expect(200);
      await bySession({ cookie: other }).get('/auth/me').expect(401);
      await t.http().post('/auth/login').send({ email: person.email, password: person.password }).expect(401);
      await signIn(t, person.email, 'brand new password');
    });

    it('lists the account’s sessions, marks the current one, and revokes one by id', async () => {
      const person = await invitedAccount(t, operator(), 'member');
      const login = await t
        .http()
        .post('/auth/login')
        .set('User-Agent', 'e2e-browser/2.0')
        .send({ email: person.email, password: person.password })
        .expect(200);
      const laptop = sessionCookie(login);

      const listed = await expectStatus(bySession({ cookie: laptop }).get('/auth/sessions'), 200);
      const sessions = listed.body.data as {
        id: string;
        created_at: string;
        expires_at: string;
        user_agent: string | null;
        ip: string | null;
        current: boolean;
      }[];
      expect(sessions).toHaveLength(2);
      for (const session of sessions) {
        expect(session).toEqual({
          id: expect.any(String),
          created_at: expect.stringMatching(ISO),
          expires_at: expect.stringMatching(ISO),
          user_agent: session.user_agent,
          ip: session.ip,
          current: expect.any(Boolean),
        });
      }
      const current = sessions.filter((session) => session.current);
      expect(current).toHaveLength(1);
      expect(current[0].user_agent).toBe('e2e-browser/2.0');
      const first = sessions.find((session) => !session.current)!;
      // No secret of a cookie in the list.
      expect(JSON.stringify(sessions)).not.toContain(laptop.split('=')[1]);
      expect(JSON.stringify(sessions)).not.toContain(person.cookie.split('=')[1]);

      // Someone else cannot end it.
      const stranger = await invitedAccount(t, operator(), 'admin');
      const refused = await bySession(stranger).delete(`/auth/sessions/${first.id}`);
      expect(refused.status).not.toBe(204);
      await bySession(person).get('/auth/me').expect(200);

      await bySession({ cookie: laptop }).delete(`/auth/sessions/${first.id}`).expect(204);
      await bySession(person).get('/auth/me').expect(401);
      await bySession({ cookie: laptop }).get('/auth/me').expect(200);
      const remaining = await expectStatus(bySession({ cookie: laptop }).get('/auth/sessions'), 200);
      expect(remaining.body.data).toEqual([
        expect.objectContaining({ current: true, user_agent: 'e2e-browser/2.0' }),
      ]);
    });
  });

  describe('teams', () => {
    it('give their members their projects, from the moment they are changed', async () => {
      const name = `Mobile Apps ${randomUUID().slice(0, 8)}`;
      const created = await expectStatus(bySession(admin).post('/api/teams').send({ name }), 201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        slug: name.toLowerCase().replace(/ /g, '-'),
        name,
        created_at: expect.stringMatching(ISO),
        member_ids: [],
        project_ids: [],
      });
      const teamId: number = created.body.id;
      const same = await bySession(admin).post('/api/teams').send({ name: name.toUpperCase() });
      expect({ status: same.status, body: same.body }).toEqual({
        status: 409,
        body: { error: expect.any(String) },
      });

      const person = await invitedAccount(t, operator(), 'viewer');
      const sees = async (projectId: number) =>
        (await byToken(person.token).get(`/api/projects/${projectId}`)).status;
      expect(await sees(unseen.id)).toBe(404);
      await bySession(admin).put(`/api/teams/${teamId}/projects/${unseen.id}`).expect(204);
      expect(await sees(unseen.id)).toBe(404);
      await bySession(admin).put(`/api/teams/${teamId}/members/${person.id}`).expect(204);
      expect(await sees(unseen.id)).toBe(200);
      const shown = await expectStatus(bySession({ cookie: person.cookie }).get(`/api/teams/${teamId}`), 200);
      expect(shown.body).toMatchObject({ id: teamId, member_ids: [person.id], project_ids: [unseen.id] });
      expect(await member(person.id)).toMatchObject({ team_ids: [teamId] });

      const renamed = await expectStatus(
        bySession(admin)
          .patch(`/api/teams/${teamId}`)
          .send({ name: `${name} and Web` }),
        200,
      );
      expect(renamed.body).toMatchObject({ id: teamId, name: `${name} and Web`, slug: created.body.slug });

      await bySession(admin).delete(`/api/teams/${teamId}/projects/${unseen.id}`).expect(204);
      expect(await sees(unseen.id)).toBe(404);
      await bySession(admin).put(`/api/teams/${teamId}/projects/${unseen.id}`).expect(204);
      await bySession(admin).delete(`/api/teams/${teamId}/members/${person.id}`).expect(204);
      expect(await sees(unseen.id)).toBe(404);
      await bySession(admin).put(`/api/teams/${teamId}/members/${person.id}`).expect(204);
      expect(await sees(unseen.id)).toBe(200);
      await bySession(admin).delete(`/api/teams/${teamId}`).expect(204);
      expect(await sees(unseen.id)).toBe(404);
      await bySession(admin).get(`/api/teams/${teamId}`).expect(404);
      const listed = await expectStatus(bySession(admin).get('/api/teams'), 200);
      expect((listed.body.data as { id: number }[]).map((team) => team.id)).not.toContain(teamId);

      const changes = await audit(`action=team&target_type=team&target_id=${teamId}`);
      expect(changes.map((entry) => entry.action)).toEqual([
        'team.delete',
        'team.member_add',
        'team.member_remove',
        'team.project_add',
        'team.project_remove',
        'team.rename',
        'team.member_add',
        'team.project_add',
        'team.create',
      ]);
      expect(changes.every((entry) => entry.actor_user_id === admin.id)).toBe(true);
    });
  });

  describe('one’s own account', () => {
    it('lets any role change its name and e-mail notifications', async () => {
      // A name of its own: the dashboard tests pick people by name in the same database.
      const newName = `Renamed Viewer ${randomUUID().slice(0, 6)}`;
      const person = await invitedAccount(t, operator(), 'viewer');
      const me = await expectStatus(bySession(person).get('/auth/me'), 200);
      expect(me.body).toMatchObject({ kind: 'user', name: 'viewer person', email_notifications: true });
      const changed = await expectStatus(
        bySession(person).patch('/auth/me').send({ name: newName, email_notifications: false }),
        200,
      );
      expect(changed.body).toMatchObject({ id: person.id, name: newName, email_notifications: false });
      expect((await expectStatus(bySession(person).get('/auth/me'), 200)).body).toMatchObject({
        name: newName,
        email_notifications: false,
        role: 'viewer',
      });
      expect(await member(person.id)).toMatchObject({ name: newName, role: 'viewer' });
      // Not a way to one's own promotion.
      await bySession(person).patch('/auth/me').send({ role: 'owner' }).expect(400);
      expect(await member(person.id)).toMatchObject({ role: 'viewer' });
    });
  });

  describe('tokens', () => {
    it('can be read-only: every change is refused', async () => {
      const person = await invitedAccount(t, operator(), 'member', { teamIds: [coreId] });
      const created = await expectStatus(
        bySession(person).post('/api/tokens').send({ description: 'dashboards', read_only: true }),
        201,
      );
      expect(created.body).toMatchObject({
        token: expect.stringMatching(/^[0-9a-f]{40}$/),
        user_id: person.id,
        read_only: true,
        project_ids: null,
      });
      const reader = byToken(created.body.token);
      await reader.get(`/api/projects/${seen.id}`).expect(200);
      await reader.get(`/api/issues/${seenIssueId}`).expect(200);
      await reader.get('/api/members').expect(200);
      await reader
        .patch(`/api/issues/${seenIssueId}`)
        .send({ state: 'resolved' })
        .expect(403, { error: 'this token is read-only' });
      await reader
        .patch(`/api/projects/${seen.id}`)
        .send({ retention_days: null })
        .expect(403, { error: 'this token is read-only' });
      await reader.post('/api/tokens').send({ description: 'escape' }).expect(403, {
        error: 'this token is read-only',
      });
      // The same account's full token may.
      await expectStatus(
        byToken(person.token).patch(`/api/issues/${seenIssueId}`).send({ state: 'open' }),
        200,
      );
    });

    it('can be limited to projects: others are not found, organisation-wide things are refused', async () => {
      const created = await expectStatus(
        bySession(owner)
          .post('/api/tokens')
          .send({ description: 'ci for one project', project_ids: [seen.id] }),
        201,
      );
      expect(created.body).toMatchObject({ user_id: owner.id, read_only: false, project_ids: [seen.id] });
      const narrow = byToken(created.body.token);
      await narrow.get(`/api/projects/${seen.id}`).expect(200);
      await narrow.get(`/api/projects/${unseen.id}`).expect(404, { error: 'project not found' });
      const listed = await expectStatus(narrow.get('/api/projects'), 200);
      expect((listed.body.data as { id: number }[]).map((project) => project.id)).toEqual([seen.id]);
      await expectStatus(narrow.patch(`/api/issues/${seenIssueId}`).send({ state: 'open' }), 200);
      for (const [method, path, body] of [
        ['get', '/api/members', undefined],
        ['get', '/api/audit-log', undefined],
        ['post', '/api/projects', { name: 'from a narrow token' }],
        ['post', '/api/teams', { name: `Narrow ${randomUUID()}` }],
        ['post', '/api/tokens', { description: 'without the limit' }],
      ] as const) {
        const request = narrow[method](path);
        const response = await (body === undefined ? request : request.send(body));
        expect({ path, status: response.status }).toEqual({ path, status: 403 });
      }
    });

    it('cannot name a project its creator does not see', async () => {
      const person = await invitedAccount(t, operator(), 'member', { teamIds: [coreId] });
      const refused = await bySession(person)
        .post('/api/tokens')
        .send({ description: 'peek', project_ids: [unseen.id] });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 400,
        body: { error: expect.any(String) },
      });
      const allowed = await expectStatus(
        bySession(person)
          .post('/api/tokens')
          .send({ description: 'mine', project_ids: [seen.id] }),
        201,
      );
      expect(allowed.body).toMatchObject({ user_id: person.id, project_ids: [seen.id] });
      // The limit narrows what the account sees now; it grants nothing once the account loses the project.
      await byToken(allowed.body.token).get(`/api/projects/${seen.id}`).expect(200);
      await bySession(admin).delete(`/api/teams/${coreId}/members/${person.id}`).expect(204);
      await byToken(allowed.body.token)
        .get(`/api/projects/${seen.id}`)
        .expect(404, { error: 'project not found' });
      await byToken(allowed.body.token)
        .get(`/api/issues/${seenIssueId}`)
        .expect(404, { error: 'issue not found' });
    });

    it('never does more than its account’s role now: a member demoted to viewer can no longer triage', async () => {
      const person = await invitedAccount(t, operator(), 'member', { teamIds: [coreId] });
      // A token made with a token belongs to the same account.
      const child = await expectStatus(
        byToken(person.token).post('/api/tokens').send({ description: 'child' }),
        201,
      );
      expect(child.body).toMatchObject({ user_id: person.id, read_only: false, project_ids: null });
      await expectStatus(
        byToken(person.token).patch(`/api/issues/${seenIssueId}`).send({ state: 'resolved' }),
        200,
      );
      await expectStatus(
        byToken(child.body.token).patch(`/api/issues/${seenIssueId}`).send({ state: 'open' }),
        200,
      );

      const demoted = await expectStatus(
        bySession(admin).patch(`/api/members/${person.id}`).send({ role: 'viewer' }),
        200,
      );
      expect(demoted.body).toMatchObject({ id: person.id, role: 'viewer' });
      for (const token of [person.token, child.body.token as string]) {
        const refused = await byToken(token).patch(`/api/issues/${seenIssueId}`).send({ state: 'resolved' });
        expect({ status: refused.status, body: refused.body }).toEqual({
          status: 403,
          body: { error: expect.any(String) },
        });
        await byToken(token).get(`/api/issues/${seenIssueId}`).expect(200);
      }
      await bySession(person).patch(`/api/issues/${seenIssueId}`).send({ state: 'resolved' }).expect(403);
      const me = await expectStatus(byToken(person.token).get('/auth/me'), 200);
      expect(me.body).toMatchObject({ kind: 'token', role: 'viewer' });
    });

    it('belongs to no account when an operator token makes it, and acts as an owner', async () => {
      const created = await expectStatus(
        operator().post('/api/tokens').send({ description: 'operator' }),
        201,
      );
      expect(created.body).toMatchObject({ user_id: null, read_only: false, project_ids: null });
      const me = await expectStatus(byToken(created.body.token).get('/auth/me'), 200);
      expect(me.body).toMatchObject({ kind: 'token', role: 'owner' });
      await expectStatus(byToken(created.body.token).get('/api/audit-log'), 200);
    });

    it('are listed, masked, to their account; admins see everyone’s and delete any', async () => {
      const person = await invitedAccount(t, operator(), 'member');
      const extra = await expectStatus(
        bySession(person).post('/api/tokens').send({ description: 'extra' }),
        201,
      );

      const own = await expectStatus(byToken(person.token).get('/api/tokens'), 200);
      const ownTokens = own.body.data as TokenView[];
      expect(ownTokens.map((token) => token.id).sort((a, b) => a - b)).toEqual(
        [person.tokenId, extra.body.id].sort((a, b) => a - b),
      );
      for (const token of ownTokens) {
        expect(token.user_id).toBe(person.id);
        expect(token.token).toMatch(MASKED);
      }
      expect(JSON.stringify(own.body)).not.toContain(person.token);

      for (const listing of [bySession(admin), bySession(owner), operator()]) {
        const all = await expectStatus(listing.get('/api/tokens'), 200);
        const ids = (all.body.data as TokenView[]).map((token) => token.id);
        expect(ids).toEqual(
          expect.arrayContaining([person.tokenId, extra.body.id, admin.tokenId, owner.tokenId]),
        );
        for (const token of all.body.data as TokenView[]) expect(token.token).toMatch(MASKED);
      }

      // Another account's token is not the member's to delete.
      const refused = await byToken(person.token).delete(`/api/tokens/${admin.tokenId}`);
      expect(refused.status).not.toBe(204);
      await byToken(admin.token).get('/api/projects').expect(200);

      await bySession(person).delete(`/api/tokens/${extra.body.id}`).expect(204);
      await byToken(extra.body.token).get('/auth/me').expect(401);
      await bySession(admin).delete(`/api/tokens/${person.tokenId}`).expect(204);
      await byToken(person.token).get('/auth/me').expect(401, { error: 'invalid or revoked token' });
      const left = await expectStatus(bySession(person).get('/api/tokens'), 200);
      expect(left.body.data).toEqual([]);
    });
  });

  describe('audit log', () => {
    it('records who did what, filtered by action or family, newest first', async () => {
      const subject = await invitedAccount(t, bySession(admin), 'member', { teamIds: [coreId] });
      const invitation = (await audit(`action=invitation.accept&actor_id=${subject.id}`))[0];
      expect(invitation).toMatchObject({
        action: 'invitation.accept',
        actor_user_id: subject.id,
        target_type: 'invitation',
      });
      const created = await audit(
        `action=invitation.create&target_type=invitation&target_id=${invitation.target_id}`,
      );
      expect(created).toEqual([
        expect.objectContaining({
          action: 'invitation.create',
          actor_user_id: admin.id,
          actor: expect.stringContaining(admin.email),
          target_id: invitation.target_id,
        }),
      ]);

      await expectStatus(bySession(admin).patch(`/api/members/${subject.id}`).send({ role: 'viewer' }), 200);
      await expectStatus(
        bySession(admin).patch(`/api/members/${subject.id}`).send({ is_active: false }),
        200,
      );
      await expectStatus(bySession(admin).patch(`/api/members/${subject.id}`).send({ is_active: true }), 200);

      const about = await audit(`action=member&target_type=member&target_id=${subject.id}`);
      expect(about.map((entry) => entry.action)).toEqual([
        'member.reactivate',
        'member.deactivate',
        'member.role_change',
      ]);
      for (const entry of about) {
        expect(entry).toMatchObject({
          id: expect.any(String),
          created_at: expect.stringMatching(ISO),
          actor_user_id: admin.id,
          actor_token_id: null,
          actor: expect.stringContaining(admin.email),
          target_type: 'member',
          target_id: String(subject.id),
        });
      }
      expect(about[2].details).toMatchObject({ from: 'member', to: 'viewer' });
      const times = about.map((entry) => Date.parse(entry.created_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      const exact = await audit(`action=member.role_change&target_id=${subject.id}`);
      expect(exact.map((entry) => entry.action)).toEqual(['member.role_change']);
      // A family is a whole first part, not any prefix.
      expect(await audit(`action=mem&target_id=${subject.id}`)).toEqual([]);

      // Through a token, the entry names the token as well as its account.
      const team = await expectStatus(
        byToken(admin.token)
          .post('/api/teams')
          .send({ name: `Audited ${randomUUID()}` }),
        201,
      );
      expect(await audit(`action=team.create&target_type=team&target_id=${team.body.id}`)).toEqual([
        expect.objectContaining({ actor_user_id: admin.id, actor_token_id: admin.tokenId }),
      ]);
    });

    it('records sign-ins, failed ones with the e-mail tried, password changes and tokens', async () => {
      const person = await invitedAccount(t, operator(), 'viewer');
      const ghost = uniqueEmail('ghost');
      await t.http().post('/auth/login').send({ email: ghost, password: 'guessing' }).expect(401);
      const cookie = await signIn(t, person.email, person.password);
      await bySession({ cookie })
        .post('/auth/password')
        .send({ current_password: person.password, new_password: 'a better password' })
        .expect(204);
      const made = await expectStatus(
        bySession({ cookie }).post('/api/tokens').send({ description: 'audited' }),
        201,
      );
      await bySession({ cookie }).delete(`/api/tokens/${made.body.id}`).expect(204);

      const failed = await audit('action=auth.sign_in_failed&limit=100');
      expect(failed.find((entry) => entry.details.email === ghost)).toMatchObject({
        action: 'auth.sign_in_failed',
        actor_user_id: null,
      });
      const mine = await audit(`actor_id=${person.id}&limit=100`);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.every((entry) => entry.actor_user_id === person.id)).toBe(true);
      const actions = mine.map((entry) => entry.action);
      expect(actions).toEqual(
        expect.arrayContaining(['auth.sign_in', 'auth.password_change', 'token.create', 'token.delete']),
      );
      // Newest first: the deletion came last.
      expect(actions.indexOf('token.delete')).toBeLessThan(actions.indexOf('token.create'));
      expect(actions.indexOf('auth.password_change')).toBeLessThan(actions.indexOf('auth.sign_in'));
      expect(mine.find((entry) => entry.action === 'token.delete')).toMatchObject({
        target_type: 'token',
        target_id: String(made.body.id),
      });
      expect(
        await audit(
          `action=auth&actor_id=${person.id}&since=${new Date(Date.now() + HOUR_MS).toISOString()}`,
        ),
      ).toEqual([]);
    });

    it('pages with limit and next_cursor, without gaps or repeats', async () => {
      const auditor = await invitedAccount(t, operator(), 'admin');
      const teams: number[] = [];
      for (let n = 0; n < 3; n++) {
        const team = await expectStatus(
          bySession(auditor)
            .post('/api/teams')
            .send({ name: `Paged ${randomUUID()}` }),
          201,
        );
        teams.push(team.body.id);
      }
      await expectStatus(
        bySession(auditor)
          .patch(`/api/teams/${teams[0]}`)
          .send({ name: `Renamed ${randomUUID()}` }),
        200,
      );
      await bySession(auditor).delete(`/api/teams/${teams[1]}`).expect(204);

      const all = await audit(`actor_id=${auditor.id}&limit=100`);
      expect(all.slice(0, 5).map((entry) => [entry.action, entry.target_id])).toEqual([
        ['team.delete', String(teams[1])],
        ['team.rename', String(teams[0])],
        ['team.create', String(teams[2])],
        ['team.create', String(teams[1])],
        ['team.create', String(teams[0])],
      ]);

      const paged: AuditEntry[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `actor_id=${auditor.id}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await expectStatus(bySession(admin).get(`/api/audit-log?${query}`), 200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        paged.push(...(page.body.data as AuditEntry[]));
        cursor = page.body.next_cursor;
        if (cursor !== null) expect(page.body.data).toHaveLength(2);
        pages++;
      } while (cursor !== null && pages < 20);
      expect(cursor).toBeNull();
      expect(pages).toBe(Math.ceil(all.length / 2));
      expect(paged.map((entry) => entry.id)).toEqual(all.map((entry) => entry.id));

      // since is inclusive, until exclusive.
      const newest = all[0];
      const oldest = all[all.length - 1];
      const since = await audit(`actor_id=${auditor.id}&limit=100&since=${newest.created_at}`);
      expect(since.map((entry) => entry.id)).toContain(newest.id);
      expect(since.map((entry) => entry.id)).not.toContain(oldest.id);
      const until = await audit(`actor_id=${auditor.id}&limit=100&until=${newest.created_at}`);
      expect(until.map((entry) => entry.id)).not.toContain(newest.id);
      expect(until.map((entry) => entry.id)).toContain(oldest.id);

      const family = await audit(`action=team&actor_id=${auditor.id}`);
      expect(family.map((entry) => entry.action)).toEqual([
        'team.delete',
        'team.rename',
        'team.create',
        'team.create',
        'team.create',
      ]);
    });

    it('orders entries by their number, not by its digits', async () => {
      // Ids of different lengths: sorted as text, 900000000 would come before 1000000000.
      const ids = ['1000000000', '900000000', '90000000'];
      try {
        for (const id of ids) {
          await db.query(
            `INSERT INTO audit_log (id, actor, action, details) VALUES ($1, 'ordering test', 'test.order', '{}')`,
            [id],
          );
        }
        expect((await audit('action=test.order')).map((entry) => entry.id)).toEqual(ids);
        const first = await expectStatus(
          bySession(admin).get('/api/audit-log?action=test.order&limit=1'),
          200,
        );
        const rest = await expectStatus(
          bySession(admin).get(
            `/api/audit-log?action=test.order&cursor=${encodeURIComponent(first.body.next_cursor)}`,
          ),
          200,
        );
        expect(rest.body.data.map((entry: AuditEntry) => entry.id)).toEqual(ids.slice(1));
      } finally {
        await db.query(`DELETE FROM audit_log WHERE action = 'test.order'`);
      }
    });

    it('records changes to channels, rules, projects and invitations, with the address they came from', async () => {
      const by = bySession(admin);
      const channel = await expectStatus(
        by
          .post('/api/alert-channels')
          .send({ name: 'Audited', channel_type: 'email', config: { to: ['a@example.com'] } }),
        201,
      );
      await expectStatus(by.patch(`/api/alert-channels/${channel.body.id}`).send({ name: 'Audited 2' }), 200);
      const project = await expectStatus(
        by.post('/api/projects').send({ name: `Audited ${randomUUID()}` }),
        201,
      );
      await expectStatus(by.patch(`/api/projects/${project.body.id}`).send({ name: 'Audited project' }), 200);
      await expectStatus(by.post(`/api/projects/${project.body.id}/client-key/rotate`).send({}), 200);
      const rule = await expectStatus(
        by
          .post(`/api/projects/${project.body.id}/alert-rules`)
          .send({ name: 'Audited rule', alert_type: 'new_issue', channel_ids: [channel.body.id] }),
        201,
      );
      await expectStatus(
        by
          .patch(`/api/projects/${project.body.id}/alert-rules/${rule.body.id}`)
          .send({ cooldown_minutes: 10 }),
        200,
      );
      await by.delete(`/api/projects/${project.body.id}/alert-rules/${rule.body.id}`).expect(204);
      await by.delete(`/api/alert-channels/${channel.body.id}`).expect(204);
      await by.delete(`/api/projects/${project.body.id}`).expect(204);
      const invitation = await expectStatus(
        invite(admin, { email: uniqueEmail('revoked'), role: 'viewer' }),
        201,
      );
      await by.delete(`/api/invitations/${invitation.body.id}`).expect(204);

      const expectations: [string, string, number][] = [
        ['channel', 'channel.create', channel.body.id],
        ['channel', 'channel.update', channel.body.id],
        ['channel', 'channel.delete', channel.body.id],
        ['project', 'project.create', project.body.id],
        ['project', 'project.update', project.body.id],
        ['project', 'project.key_rotate', project.body.id],
        ['project', 'project.delete', project.body.id],
        ['rule', 'rule.create', rule.body.id],
        ['rule', 'rule.update', rule.body.id],
        ['rule', 'rule.delete', rule.body.id],
        ['invitation', 'invitation.revoke', invitation.body.id],
      ];
      for (const [family, action, id] of expectations) {
        const entries = await audit(`action=${action}&actor_id=${admin.id}&limit=100`);
        const entry = entries.find((each) => each.target_id === String(id));
        expect({ action, entry }).toEqual({
          action,
          entry: expect.objectContaining({
            action,
            actor_user_id: admin.id,
            actor: expect.stringContaining(admin.email),
            ip: expect.any(String),
          }),
        });
        expect(entries.every((each) => each.action.startsWith(`${family}.`))).toBe(true);
      }
    });

    it('is for admins and owners only', async () => {
      await expectStatus(bySession(owner).get('/api/audit-log'), 200);
      await expectStatus(operator().get('/api/audit-log'), 200);
      for (const role of ['member', 'viewer'] as const) {
        const person = await invitedAccount(t, operator(), role, { teamIds: [coreId] });
        for (const client of [bySession(person), byToken(person.token)]) {
          const refused = await client.get('/api/audit-log');
          expect({ status: refused.status, body: refused.body }).toEqual({
            status: 403,
            body: { error: expect.any(String) },
          });
        }
      }
    });
  });

  describe("what stays an owner's or hidden", () => {
    it("lists a team's projects as far as the asker sees them", async () => {
      const team = await expectStatus(
        operator()
          .post('/api/teams')
          .send({ name: `Mixed ${randomUUID()}` }),
        201,
      );
      await expectStatus(operator().put(`/api/teams/${team.body.id}/projects/${unseen.id}`), 204);
      await expectStatus(operator().put(`/api/teams/${team.body.id}/projects/${seen.id}`), 204);
      const viewer = await invitedAccount(t, operator(), 'viewer', { teamIds: [coreId] });

      const asViewer = await expectStatus(bySession(viewer).get(`/api/teams/${team.body.id}`), 200);
      expect(asViewer.body.project_ids).toEqual([seen.id]);
      const listed = await expectStatus(bySession(viewer).get('/api/teams'), 200);
      const mixed = (listed.body.data as { id: number; project_ids: number[] }[]).find(
        (each) => each.id === team.body.id,
      );
      expect(mixed?.project_ids).toEqual([seen.id]);
      const asAdmin = await expectStatus(bySession(admin).get(`/api/teams/${team.body.id}`), 200);
      expect(asAdmin.body.project_ids).toEqual([seen.id, unseen.id].sort((a, b) => a - b));
    });

    it('answers 404 for what does not exist before saying what the asker may not do', async () => {
      const viewer = await invitedAccount(t, operator(), 'viewer', { teamIds: [coreId] });
      const teamMember = await invitedAccount(t, operator(), 'member', { teamIds: [coreId] });
      const readOnly = await expectStatus(
        bySession(teamMember).post('/api/tokens').send({ description: 'reader', read_only: true }),
        201,
      );
      const missing = 2_000_000_000;
      // The same answers for an issue that does not exist and one of a project out of sight.
      const outOfSight = await db.query<{ id: string }[]>('SELECT id FROM issues WHERE project_id = $1', [
        unseen.id,
      ]);
      expect(outOfSight.map((row) => Number(row.id))).toEqual([unseenIssueId]);
      for (const id of [missing, unseenIssueId]) {
        await bySession(viewer)
          .patch(`/api/issues/${id}`)
          .send({ state: 'resolved' })
          .expect(404, { error: 'issue not found' });
        await bySession(viewer)
          .post(`/api/issues/${id}/comments`)
          .send({ body: 'x' })
          .expect(404, { error: 'issue not found' });
      }
      await byToken(readOnly.body.token)
        .delete(`/api/issues/${missing}`)
        .expect(404, { error: 'issue not found' });
      await byToken(readOnly.body.token)
        .delete(`/api/issues/${seenIssueId}`)
        .expect(403, { error: 'this token is read-only' });
      await bySession(viewer)
        .post('/api/0/projects/default/no-such-project/releases/')
        .send({ version: '1.0' })
        .expect(404, { error: 'project "no-such-project" not found' });
      // What exists and is in sight is a 403.
      await bySession(viewer)
        .patch(`/api/issues/${seenIssueId}`)
        .send({ state: 'resolved' })
        .expect(403, { error: 'a viewer cannot triage issues' });
    });

    it('refuses cursors and times beyond what the database holds with a 400', async () => {
      const cursor = (text: string) => encodeURIComponent(Buffer.from(text).toString('base64url'));
      await bySession(admin)
        .get(`/api/issues/${seenIssueId}/comments?cursor=${cursor('comment|9999999999')}`)
        .expect(400, { error: 'cursor is not valid' });
      await bySession(admin)
        .get(`/api/audit-log?cursor=${cursor('9999999999999999999')}`)
        .expect(400, { error: 'cursor is not valid' });
      await bySession(admin)
        .get('/api/audit-log?since=-271821-04-20T00:00:00.000Z')
        .expect(400, { error: 'since must be a date from the year 1 to 9999' });
    });

    it('lets only owners delete an operator token, which acts as an owner', async () => {
      const operatorToken = await expectStatus(
        operator().post('/api/tokens').send({ description: 'ops' }),
        201,
      );
      expect(operatorToken.body.user_id).toBeNull();
      await bySession(admin)
        .delete(`/api/tokens/${operatorToken.body.id}`)
        .expect(403, { error: "only an owner can delete an owner's token" });
      await bySession(owner).delete(`/api/tokens/${operatorToken.body.id}`).expect(204);
    });

    it("lets only owners delete an owner's token", async () => {
      const holder = await invitedAccount(t, operator(), 'owner');
      await bySession(admin)
        .delete(`/api/tokens/${holder.tokenId}`)
        .expect(403, { error: "only an owner can delete an owner's token" });
      await byToken(holder.token).get('/auth/me').expect(200);
      await bySession(owner).delete(`/api/tokens/${holder.tokenId}`).expect(204);
      await byToken(holder.token).get('/auth/me').expect(401);
    });
  });
});
