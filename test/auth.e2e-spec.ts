import request from 'supertest';
import { DataSource } from 'typeorm';
import { UsersService } from '../src/users/users.service';
import { startTestApp, TestApp } from './helpers/app';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function sessionCookie(setCookie: string | string[] | undefined): string {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const cookie = cookies.find((value) => value.startsWith('et_session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(setCookie)}`);
  return cookie;
}

describe('dashboard sign-in', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ CREATE_SUPERUSER: 'admin@example.com:secret' });
  });
  afterAll(() => t.close());

  it('sets an httpOnly, SameSite=Lax session cookie that authenticates API calls until logout', async () => {
    const login = await t
      .http()
      .post('/auth/login')
      .send({ email: 'admin@example.com', password: 'secret' })
      .expect(200);
    expect(login.body).toEqual({ id: expect.any(Number), email: 'admin@example.com' });
    const setCookie = sessionCookie(login.headers['set-cookie']);
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Lax/i);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/; Secure/i);
    const cookie = setCookie.split(';')[0];

    await t
      .http()
      .get('/auth/me')
      .set('Cookie', cookie)
      .expect(200)
      .expect(({ body }) =>
        // CREATE_SUPERUSER makes an owner.
        expect(body).toMatchObject({
          kind: 'user',
          id: login.body.id,
          email: 'admin@example.com',
          role: 'owner',
        }),
      );
    await t.http().get('/api/projects').set('Cookie', cookie).expect(200);

    const token = await t
      .http()
      .post('/api/tokens')
      .set('Cookie', cookie)
      .set('Origin', t.url)
      .send({ description: 'from the dashboard' })
      .expect(201);
    expect(token.body.token).toMatch(/^[0-9a-f]{40}$/);
    await t.http().get('/api/projects').set('Authorization', `Bearer ${token.body.token}`).expect(200);

    await t.http().post('/auth/logout').set('Cookie', cookie).expect(204);
    await t.http().get('/auth/me').set('Cookie', cookie).expect(401, { error: 'missing bearer token' });
    await t.http().get('/api/projects').set('Cookie', cookie).expect(401, { error: 'missing bearer token' });
  });

  it('answers whether the browser is signed in without an error: GET /auth/session', async () => {
    await t.http().get('/auth/session').expect(200, { user: null });
    await t.http().get('/auth/session').set('Cookie', 'et_session=garbage').expect(200, { user: null });
    // /auth/me keeps its contract: 401 without an account.
    await t.http().get('/auth/me').expect(401, { error: 'missing bearer token' });

    const login = await t
      .http()
      .post('/auth/login')
      .send({ email: 'admin@example.com', password: 'secret' })
      .expect(200);
    const cookie = sessionCookie(login.headers['set-cookie']).split(';')[0];
    const me = await t.http().get('/auth/me').set('Cookie', cookie).expect(200);
    const session = await t.http().get('/auth/session').set('Cookie', cookie).expect(200);
    expect(session.body).toEqual({ user: me.body });
    expect(session.body.user).toMatchObject({ kind: 'user', email: 'admin@example.com', role: 'owner' });
    expect(session.headers['cache-control']).toMatch(/no-store/);

    await t.http().post('/auth/logout').set('Cookie', cookie).expect(204);
    await t.http().get('/auth/session').set('Cookie', cookie).expect(200, { user: null });
  });

  it('rotates the session at sign-in: the cookie sent along is ended, a new one issued', async () => {
    const signIn = (email: string, password: string, cookie?: string) => {
      const request = t.http().post('/auth/login');
      if (cookie) request.set('Cookie', cookie);
      return request.send({ email, password });
    };
    const first = sessionCookie(
      (await signIn('admin@example.com', 'secret').expect(200)).headers['set-cookie'],
    ).split(';')[0];
    const second = sessionCookie(
      (await signIn('admin@example.com', 'secret', first).expect(200)).headers['set-cookie'],
    ).split(';')[0];
    expect(second).not.toBe(first);
    await t.http().get('/auth/me').set('Cookie', first).expect(401);
    await t.http().get('/auth/me').set('Cookie', second).expect(200);

    // A failed attempt leaves the session it came with alone.
    await signIn('admin@example.com', 'wrong', second).expect(401);
    await t.http().get('/auth/me').set('Cookie', second).expect(200);

    // Fixation: a session cookie planted in the victim's browser (here, one of the attacker's own
    // account) is ended by the victim's sign-in, and the victim's session gets a value of its own.
    await t.app.get(UsersService).createOrUpdate('attacker@example.com', 'attacker-secret');
    const planted = sessionCookie(
      (await signIn('attacker@example.com', 'attacker-secret').expect(200)).headers['set-cookie'],
    ).split(';')[0];
    const victim = await signIn('admin@example.com', 'secret', planted).expect(200);
    const issued = sessionCookie(victim.headers['set-cookie']).split(';')[0];
    expect(issued).not.toBe(planted);
    await t.http().get('/auth/me').set('Cookie', planted).expect(401);
    await t
      .http()
      .get('/auth/me')
      .set('Cookie', issued)
      .expect(200)
      .expect(({ body }) =>
        expect(body).toMatchObject({ kind: 'user', id: victim.body.id, email: 'admin@example.com' }),
      );
  });

  it('accepts the e-mail in any case', async () => {
    await t.http().post('/auth/login').send({ email: 'Admin@Example.COM', password: 'secret' }).expect(200);
  });

  it('refuses a wrong password or an unknown user with 401 and no cookie', async () => {
    const wrong = await t
      .http()
      .post('/auth/login')
      .send({ email: 'admin@example.com', password: 'nope' })
      .expect(401);
    expect(wrong.body).toEqual({ error: 'invalid e-mail or password' });
    expect(wrong.headers['set-cookie']).toBeUndefined();
    await t
      .http()
      .post('/auth/login')
      .send({ email: 'ghost@example.com', password: 'secret' })
      .expect(401, { error: 'invalid e-mail or password' });
    await t
      .http()
      .post('/auth/login')
      .send({ email: 'admin@example.com' })
      .expect(400, { error: 'password must be a string' });
  });

  it('ignores a forged or unknown session cookie', async () => {
    await t
      .http()
      .get('/auth/me')
      .set('Cookie', `et_session=${'a'.repeat(64)}`)
      .expect(401);
    await t.http().get('/auth/me').set('Cookie', 'et_session=garbage').expect(401);
  });

  it('tells a token principal apart from a user', async () => {
    const me = await t.api().get('/auth/me').expect(200);
    // A token made without an account (the CLI's, or from before accounts had roles) acts as an owner.
    expect(me.body).toMatchObject({ kind: 'token', id: expect.any(Number), user_id: null, role: 'owner' });
    expect(me.body).not.toHaveProperty('email');
  });
});

describe('API tokens', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates a token shown in full once, then only masked', async () => {
    const created = await t.api().post('/api/tokens').send({ description: 'ci' }).expect(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      token: expect.stringMatching(/^[0-9a-f]{40}$/),
      description: 'ci',
      created_at: expect.stringMatching(ISO),
      last_used_at: null,
      user_id: null,
      read_only: false,
      project_ids: null,
    });
    const full = created.body.token as string;

    const list = await t.api().get('/api/tokens').expect(200);
    expect(Object.keys(list.body)).toEqual(['data']);
    const listed = (list.body.data as { id: number }[]).find((token) => token.id === created.body.id);
    expect(listed).toEqual({
      id: created.body.id,
      token: `${full.slice(0, 8)}...****`,
      description: 'ci',
      created_at: created.body.created_at,
      last_used_at: null,
      user_id: null,
      read_only: false,
      project_ids: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(full);
    expect(JSON.stringify(list.body)).not.toContain(t.token);
    for (const token of list.body.data as { token: string }[])
      expect(token.token).toMatch(/^[0-9a-f]{8}\.\.\.\*\*\*\*$/);
  });

  it('authenticates with a new token (in either case) and records when it was used', async () => {
    const created = await t.api().post('/api/tokens').send({ description: 'usage' }).expect(201);
    const before = Date.now();
    await t.http().get('/api/projects').set('Authorization', `Bearer ${created.body.token}`).expect(200);
    await t
      .http()
      .get('/api/projects')
      .set('Authorization', `bearer ${(created.body.token as string).toUpperCase()}`)
      .expect(200);
    const list = await t.api().get('/api/tokens').expect(200);
    const listed = (list.body.data as { id: number; last_used_at: string | null }[]).find(
      (token) => token.id === created.body.id,
    );
    expect(listed?.last_used_at).toMatch(ISO);
    expect(Date.parse(listed!.last_used_at!)).toBeGreaterThanOrEqual(before - 1_000);
  });

  it('revokes a deleted token at once', async () => {
    const created = await t.api().post('/api/tokens').send({ description: 'short lived' }).expect(201);
    const agent = () => t.http().get('/api/projects').set('Authorization', `Bearer ${created.body.token}`);
    await agent().expect(200);
    await t.api().delete(`/api/tokens/${created.body.id}`).expect(204, '');
    await agent().expect(401, { error: 'invalid or revoked token' });
    const list = await t.api().get('/api/tokens').expect(200);
    expect((list.body.data as { id: number }[]).some((token) => token.id === created.body.id)).toBe(false);
    await t.api().delete(`/api/tokens/${created.body.id}`).expect(404, { error: 'token not found' });
  });

  it('validates input and ids', async () => {
    await t.api().delete('/api/tokens/99999999').expect(404, { error: 'token not found' });
    for (const bad of ['abc', '1.5', '-1', '0', '99999999999']) {
      await t.api().delete(`/api/tokens/${bad}`).expect(400, { error: 'id must be a positive integer' });
    }
    await t.api().post('/api/tokens').send({}).expect(400, { error: 'description must be a string' });
    await t
      .api()
      .post('/api/tokens')
      .send({ description: 5 })
      .expect(400, { error: 'description must be a string' });
    await t
      .api()
      .post('/api/tokens')
      .send({ description: 'x', token: 'a'.repeat(40) })
      .expect(400, { error: 'property token should not exist' });
  });
});

describe('401 responses', () => {
  let t: TestApp;
  let deletedToken: string;

  beforeAll(async () => {
    t = await startTestApp();
    const created = await t.api().post('/api/tokens').send({ description: 'deleted' }).expect(201);
    deletedToken = created.body.token;
    await t.api().delete(`/api/tokens/${created.body.id}`).expect(204);
  });
  afterAll(() => t.close());

  const cases: [string, () => Record<string, string>, string][] = [
    ['no Authorization header', () => ({}), 'missing bearer token'],
    ['an empty header', () => ({ Authorization: '' }), 'Authorization header must be "Bearer <token>"'],
    [
      'a bare token without scheme',
      () => ({ Authorization: 'a'.repeat(40) }),
      'Authorization header must be "Bearer <token>"',
    ],
    [
      'Bearer without token',
      () => ({ Authorization: 'Bearer' }),
      'Authorization header must be "Bearer <token>"',
    ],
    [
      'Basic scheme',
      () => ({ Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }),
      'Authorization header must be "Bearer <token>"',
    ],
    [
      'Token scheme',
      () => ({ Authorization: `Token ${'a'.repeat(40)}` }),
      'Authorization header must be "Bearer <token>"',
    ],
    [
      'a 39-character token',
      () => ({ Authorization: `Bearer ${'a'.repeat(39)}` }),
      'token must be 40 hexadecimal characters',
    ],
    [
      'a 41-character token',
      () => ({ Authorization: `Bearer ${'a'.repeat(41)}` }),
      'token must be 40 hexadecimal characters',
    ],
    [
      'a non-hex token',
      () => ({ Authorization: `Bearer ${'g'.repeat(40)}` }),
      'token must be 40 hexadecimal characters',
    ],
    ['an unknown token', () => ({ Authorization: `Bearer ${'0'.repeat(40)}` }), 'invalid or revoked token'],
    ['a deleted token', () => ({ Authorization: `Bearer ${deletedToken}` }), 'invalid or revoked token'],
    [
      'a valid token followed by junk',
      () => ({ Authorization: `Bearer ${t.token} x` }),
      'Authorization header must be "Bearer <token>"',
    ],
  ];

  it.each(cases)('%s → 401 {error}', async (_name, headers, error) => {
    for (const [method, path] of [
      ['get', '/api/projects'],
      ['post', '/api/projects'],
      ['get', '/api/tokens'],
      ['post', '/api/tokens'],
      ['get', '/api/issues/1'],
      ['patch', '/api/issues/1'],
      ['get', '/api/events/00000000-0000-0000-0000-000000000000'],
      ['get', '/api/alert-channels'],
      ['get', '/api/projects/1/alert-rules'],
      ['get', '/api/projects/1/alert-history'],
      ['get', '/auth/me'],
    ] as const) {
      const response = await request(t.app.getHttpServer())[method](path).set(headers()).send({ name: 'x' });
      expect({ method, path, status: response.status, body: response.body }).toEqual({
        method,
        path,
        status: 401,
        body: { error },
      });
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+/);
    }
  });

  it('never leaks a stack trace, even for malformed requests', async () => {
    const responses = await Promise.all([
      t.api().post('/api/projects').set('Content-Type', 'application/json').send('{"name":'),
      t.api().get('/api/events/not-a-uuid'),
      t.api().get('/api/issues/abc'),
      t.api().get('/api/nope'),
      t.http().get('/api/nope'),
    ]);
    for (const response of responses) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(typeof response.body.error).toBe('string');
      expect(response.text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+|stack/);
    }
  });
});

describe('CREATE_SUPERUSER at every start', () => {
  it('makes an owner once, then only resets the password: a deactivation or demotion is not undone', async () => {
    const email = `keeper-${Date.now()}@example.com`;
    const first = await startTestApp({ CREATE_SUPERUSER: `${email}:first-pass` });
    let userId: number;
    try {
      await first.http().post('/auth/login').send({ email, password: 'first-pass' }).expect(200);
      const db = first.app.get(DataSource);
      [{ id: userId }] = await db.query('SELECT id FROM users WHERE email = $1', [email]);
      await db.query(`UPDATE users SET role = 'member', is_active = false WHERE id = $1`, [userId]);
    } finally {
      await first.close();
    }
    const second = await startTestApp({ CREATE_SUPERUSER: `${email}:second-pass` });
    try {
      await second.http().post('/auth/login').send({ email, password: 'second-pass' }).expect(401);
      const db = second.app.get(DataSource);
      const [row] = await db.query('SELECT role, is_active FROM users WHERE id = $1', [userId]);
      expect(row).toEqual({ role: 'member', is_active: false });
      const audit: { action: string; actor: string }[] = await db.query(
        `SELECT action, actor FROM audit_log WHERE target_type = 'member' AND target_id = $1 ORDER BY id`,
        [String(userId)],
      );
      expect(audit.filter((entry) => entry.actor === 'CREATE_SUPERUSER')).toEqual([
        { action: 'member.create', actor: 'CREATE_SUPERUSER' },
        { action: 'auth.password_change', actor: 'CREATE_SUPERUSER' },
      ]);
    } finally {
      await second.close();
    }
  });
});
