import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import { UsersService } from '../src/users/users.service';
import { hashPassword } from '../src/common/crypto';
import { Environment } from '../src/config/environment';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { startProxy, TcpProxy } from './helpers/tcp-proxy';
import { TEST_REDIS_URL } from './helpers/test-env';

const ADMIN = 'admin@example.com';
const PASSWORD = 'secret';

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('hostile JSON bodies on the management API', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ CREATE_SUPERUSER: `${ADMIN}:${PASSWORD}` });
  });
  afterAll(() => t.close());

  const routes = [
    ['POST /api/projects', () => t.api().post('/api/projects')],
    ['POST /auth/login', () => t.http().post('/auth/login')],
  ] as const;

  it.each(routes)('%s answers 400 {error} to a 100,000-deep body', async (_name, send) => {
    for (const body of [deepArray(100_000), deepObject(100_000), `{"name":${deepArray(100_000)}}`]) {
      const response = await send().set('Content-Type', 'application/json').send(body);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: { error: expect.stringMatching(/nested too deeply/) },
      });
    }
  });

  it('refuses a megabyte of nesting before parsing it, on any route, without a token', async () => {
    // What follows the 33rd level is not JSON at all: only a refusal that never parses answers
    // "nested too deeply" rather than a syntax error.
    const body = deepArray(500_000) + '} not json {'.repeat(1_000);
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const responses = await Promise.all(
        Array.from({ length: 3 }, () =>
          t.http().post('/api/projects').set('Content-Type', 'application/json').send(body),
        ),
      );
      for (const response of responses) {
        expect({ status: response.status, body: response.body }).toEqual({
          status: 400,
          body: { error: 'request body is nested too deeply (more than 32 levels)' },
        });
      }
      // Neither body-parser nor anything after it was handed the body (the answer itself is parsed here).
      const longestParsed = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
      expect(longestParsed).toBeLessThan(1_000);
    } finally {
      parse.mockRestore();
    }
  });

  it.each(routes)('%s leaves 32 levels of nesting to validation and refuses 33', async (_name, send) => {
    const body = (depth: number) =>
      `{"name":"x","email":"${ADMIN}","password":"p","extra":${deepArray(depth - 1)}}`;
    const allowed = await send().set('Content-Type', 'application/json').send(body(32));
    expect(allowed.status).toBe(400);
    expect(allowed.body.error).toMatch(/should not exist/);
    await send()
      .set('Content-Type', 'application/json')
      .send(body(33))
      .expect(400, { error: 'request body is nested too deeply (more than 32 levels)' });
  });

  it.each(routes)('%s refuses huge arrays before validation walks them', async (_name, send) => {
    for (const body of [
      `[${'0,'.repeat(400_000)}0]`,
      `{"name":[${'0,'.repeat(400_000)}0],"email":"a","password":"b"}`,
    ]) {
      await send()
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(400, { error: 'request body has too many values (more than 10000)' });
    }
  });

  it.each(routes)('%s never answers 500 to other hostile bodies', async (_name, send) => {
    const bodies = [
      `{"name":"x","email":"${ADMIN}","password":"${PASSWORD}","__proto__":{"admin":true}}`,
      `{"__proto__":{"name":"polluted","email":"${ADMIN}","password":"${PASSWORD}"}}`,
      `{"constructor":{"prototype":{"admin":true}},"name":"x","email":"a","password":"b"}`,
      `{"name":1e400,"email":1e400,"password":-1e400}`,
      `{"name":"x","email":"a","password":"b","n":1e400}`,
      '"just a string"',
      'null',
      '123',
      '[]',
      '{}',
    ];
    for (const body of bodies) {
      const response = await send().set('Content-Type', 'application/json').send(body);
      expect({ body: body.slice(0, 80), status: response.status }).toEqual({
        body: body.slice(0, 80),
        status: 400,
      });
      expect(Object.keys(response.body)).toEqual(['error']);
    }
    // The app runs in this process: a polluted Object.prototype would show here.
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

function sessionCookie(setCookie: string | string[] | undefined): string {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const cookie = cookies.find((value) => value.startsWith('et_session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(setCookie)}`);
  return cookie.split(';')[0];
}

describe('sign-in throttling', () => {
  let t: TestApp;
  let address = 0;
  /** Every attempt comes from an address of its own unless a test picks one. */
  const login = (email: string, password: string, from = `198.51.100.${++address % 250}`) =>
    t.http().post('/auth/login').set('X-Forwarded-For', from).send({ email, password });
  const user = async (email: string) => {
    await t.app.get(UsersService).createOrUpdate(email, PASSWORD);
    return email;
  };

  beforeAll(async () => {
    t = await startTestApp({
      CREATE_SUPERUSER: `${ADMIN}:${PASSWORD}`,
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
      LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '6',
    });
  });
  afterAll(() => t.close());

  it('defaults to 10 failures per account and 30 attempts per address in 15 minutes', () => {
    const defaults = new Environment();
    expect(defaults.LOGIN_MAX_FAILURES_PER_ACCOUNT).toBe(10);
    expect(defaults.LOGIN_MAX_ATTEMPTS_PER_ADDRESS).toBe(30);
    expect(defaults.LOGIN_THROTTLE_WINDOW_MINUTES).toBe(15);
  });

  it('locks an account after too many failures, from any address and in any spelling of the e-mail', async () => {
    for (const email of [ADMIN, ' Admin@Example.com', 'ADMIN@EXAMPLE.COM'])
      await login(email, 'wrong').expect(401);
    const locked = await login(ADMIN, PASSWORD).expect(429);
    expect(locked.body).toEqual({
      error: 'too many failed sign-in attempts for this account, try again later',
    });
    expect(locked.headers['set-cookie']).toBeUndefined();
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    await login(ADMIN.toUpperCase(), PASSWORD).expect(429);

    const other = await user('other@example.com');
    await login(other, PASSWORD).expect(200);
  });

  it('clears the failure count on a successful sign-in', async () => {
    const email = await user('clears@example.com');
    await login(email, 'wrong').expect(401);
    await login(email, 'wrong').expect(401);
    await login(email, PASSWORD).expect(200);
    for (let i = 0; i < 3; i++) await login(email, 'wrong').expect(401);
    await login(email, 'wrong').expect(429);
  });

  it('treats an unknown e-mail like an existing one', async () => {
    for (let i = 0; i < 3; i++) await login('ghost@example.com', 'wrong').expect(401);
    await login('ghost@example.com', 'wrong').expect(429, {
      error: 'too many failed sign-in attempts for this account, try again later',
    });
  });

  it('limits attempts per client address, successful or not; IPv6 counts per /64', async () => {
    const email = await user('address@example.com');
    for (const from of ['203.0.113.50', '2001:db8:1:2::1']) {
      const neighbour = from.includes(':') ? '2001:db8:1:2:ffff:ffff:ffff:fffe' : from;
      await login(email, PASSWORD, from).expect(200);
      for (let i = 0; i < 5; i++)
        await login(`nobody${i}-${randomUUID()}@example.com`, 'wrong', neighbour).expect(401);
      const refused = await login(email, PASSWORD, from).expect(429);
      expect(refused.body).toEqual({ error: 'too many sign-in attempts from this address, try again later' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
      await login(email, PASSWORD, from.includes(':') ? '2001:db8:1:3::1' : '203.0.113.51').expect(200);
    }
  });

  it('is shared by every api instance through Redis', async () => {
    const email = await user('shared@example.com');
    const second = await startTestApp({
      APP_ROLE: 'api',
      REDIS_PREFIX: t.config.REDIS_PREFIX,
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
    });
    try {
      await login(email, 'wrong').expect(401);
      await second.http().post('/auth/login').send({ email, password: 'wrong' }).expect(401);
      await login(email, 'wrong').expect(401);
      await second.http().post('/auth/login').send({ email, password: PASSWORD }).expect(429);
    } finally {
      await second.close();
    }
  });

  it('keeps the thread pool free for other work while sign-ins pour in', async () => {
    const threadPoolTask = promisify(deflate);
    /** Milliseconds `work` takes, by the clock: the probe below is about waiting, not CPU. */
    const wallMs = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    // What one password hash holds a thread for, on this machine now: the yardstick for the waits.
    let oneHash = Infinity;
    for (let attempt = 0; attempt < 3; attempt++) {
      oneHash = Math.min(oneHash, await wallMs(() => hashPassword('yardstick')));
    }
    let flooding = true;
    const waits: number[] = [];
    // Something else that needs the thread pool, again and again while the sign-ins are handled.
    const probe = (async () => {
      while (flooding) {
        waits.push(await wallMs(() => threadPoolTask(Buffer.alloc(64 * 1024, 'a'))));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        login(`flood${i}-${randomUUID()}@example.com`, 'wrong', `192.0.2.${i + 1}`),
      ),
    );
    flooding = false;
    await probe;
    expect(waits.length).toBeGreaterThan(5);
    // Sign-ins hold at most two of the pool's four threads, so other work finds one free: it waits
    // for the event loop now and then, never for the queue of hashes (60 sign-ins on every thread
    // would hold it up for about fifteen hashes in a row).
    expect(Math.max(...waits)).toBeLessThan(3 * oneHash);
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status !== 401 && status !== 503)).toEqual([]);
    const busy = responses.filter((response) => response.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0].body).toEqual({ error: 'sign-in is busy, try again in a moment' });
    expect(busy[0].headers['retry-after']).toBe('1');
  });
});

describe('sign-in without Redis', () => {
  let t: TestApp;
  let redis: TcpProxy;

  beforeAll(async () => {
    const target = new URL(TEST_REDIS_URL);
    redis = await startProxy(Number(target.port || 6379));
    t = await startTestApp({
      APP_ROLE: 'api',
      CREATE_SUPERUSER: `${ADMIN}:${PASSWORD}`,
      REDIS_URL: `redis://127.0.0.1:${redis.port}${target.pathname}`,
    });
  });
  afterAll(async () => {
    redis.thaw();
    await redis.restore();
    // Closing while the clients are still reconnecting would wait for them.
    await eventually(async () => (await t.http().get('/health/ready')).status === 200);
    await t.close();
    await redis.cut();
  });

  const signIn = () => t.http().post('/auth/login').send({ email: ADMIN, password: PASSWORD });
  const unavailable = { error: 'sign-in is temporarily unavailable, try again shortly' };

  it('answers 503 within 5 s when Redis stops answering, and never signs in unthrottled', async () => {
    await signIn().expect(200);
    redis.freeze();
    const started = Date.now();
    const response = await signIn();
    expect({ status: response.status, body: response.body }).toEqual({ status: 503, body: unavailable });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['retry-after']).toBe('5');
    redis.thaw();
    await eventually(async () => (await signIn()).status === 200);
  });

  it('answers 503 at once when Redis refuses connections', async () => {
    await redis.cut();
    const started = Date.now();
    const response = await signIn();
    expect({ status: response.status, body: response.body }).toEqual({ status: 503, body: unavailable });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(response.headers['set-cookie']).toBeUndefined();
  });
});

describe('cross-site request protection', () => {
  const PUBLIC_URL = 'https://errors.example.com';
  let t: TestApp;
  let cookie: string;

  beforeAll(async () => {
    t = await startTestApp({ CREATE_SUPERUSER: `${ADMIN}:${PASSWORD}`, PUBLIC_URL });
    const login = await t.http().post('/auth/login').send({ email: ADMIN, password: PASSWORD }).expect(200);
    cookie = sessionCookie(login.headers['set-cookie']);
  });
  afterAll(() => t.close());

  const crossSite: Record<string, string>[] = [
    {},
    { Origin: 'https://evil.example' },
    { Origin: 'null' },
    { Origin: 'http://errors.example.com' },
    { 'Sec-Fetch-Site': 'cross-site' },
    { 'Sec-Fetch-Site': 'same-site', Origin: 'https://other.example.com' },
    { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' },
  ];

  it('refuses cookie-authenticated changes without proof that they come from this site', async () => {
    const project = (await t.api().post('/api/projects').send({ name: 'Untouched' }).expect(201)).body as {
      id: number;
    };
    for (const headers of crossSite) {
      for (const [method, path, body] of [
        ['post', '/api/projects', { name: 'Forged' }],
        ['patch', `/api/projects/${project.id}`, { name: 'Forged' }],
        ['delete', `/api/projects/${project.id}`, undefined],
        ['post', '/api/tokens', { description: 'forged' }],
      ] as const) {
        const response = await t.http()[method](path).set('Cookie', cookie).set(headers).send(body);
        expect({ headers, method, path, status: response.status, body: response.body }).toEqual({
          headers,
          method,
          path,
          status: 403,
          body: { error: 'cross-site request refused: send it from the dashboard or with a bearer token' },
        });
      }
    }
    const projects = (await t.api().get('/api/projects').expect(200)).body.data as {
      id: number;
      name: string;
    }[];
    // Other test files share the database: look only at what this test made or tried to make.
    expect(projects.filter((p) => p.id === project.id || p.name === 'Forged')).toEqual([
      expect.objectContaining({ id: project.id, name: 'Untouched' }),
    ]);
    const tokens = (await t.api().get('/api/tokens').expect(200)).body.data as { description: string }[];
    expect(tokens.map((token) => token.description)).not.toContain('forged');
  });

  it('accepts them from this site: its own origin, PUBLIC_URL, or what the browser says', async () => {
    const own = `http://127.0.0.1:${t.port}`;
    for (const headers of [
      { Origin: own },
      { Origin: PUBLIC_URL },
      { 'Sec-Fetch-Site': 'same-origin' },
      { 'Sec-Fetch-Site': 'same-origin', Origin: own },
      { 'Sec-Fetch-Site': 'none' },
      { Host: 'tracker.internal', 'X-Forwarded-Proto': 'https', Origin: 'https://tracker.internal' },
    ]) {
      const created = await t
        .http()
        .post('/api/projects')
        .set('Cookie', cookie)
        .set(headers)
        .send({ name: 'Mine' });
      expect({ headers, status: created.status }).toEqual({ headers, status: 201 });
      await t
        .http()
        .patch(`/api/projects/${created.body.id}`)
        .set('Cookie', cookie)
        .set(headers)
        .send({ name: 'Renamed' })
        .expect(200);
      await t
        .http()
        .delete(`/api/projects/${created.body.id}`)
        .set('Cookie', cookie)
        .set(headers)
        .expect(204);
    }
  });

  it('leaves reads, bearer tokens and requests without a session alone', async () => {
    await t.http().get('/api/projects').set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site').expect(200);
    for (const headers of crossSite) {
      await t.api().post('/api/projects').set(headers).send({ name: 'Token made' }).expect(201);
      await t
        .api()
        .post('/api/projects')
        .set('Cookie', cookie)
        .set(headers)
        .send({ name: 'Token made' })
        .expect(201);
      await t
        .http()
        .post('/api/projects')
        .set(headers)
        .send({ name: 'x' })
        .expect(401, { error: 'missing bearer token' });
    }
  });

  it('refuses sign-in and sign-out that a browser reports as cross-site', async () => {
    for (const headers of [
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { Origin: 'https://evil.example' },
      { Origin: 'null' },
    ]) {
      const login = await t
        .http()
        .post('/auth/login')
        .set(headers)
        .send({ email: ADMIN, password: PASSWORD });
      expect({ headers, status: login.status, body: login.body }).toEqual({
        headers,
        status: 403,
        body: { error: 'cross-site sign-in refused' },
      });
      expect(login.headers['set-cookie']).toBeUndefined();
      const logout = await t.http().post('/auth/logout').set('Cookie', cookie).set(headers);
      expect({ headers, status: logout.status, body: logout.body }).toEqual({
        headers,
        status: 403,
        body: { error: 'cross-site sign-out refused' },
      });
      await t.http().get('/auth/me').set('Cookie', cookie).expect(200);
    }
    // Scripts and command-line clients send neither header.
    const own = `http://127.0.0.1:${t.port}`;
    for (const headers of [
      {},
      { 'Sec-Fetch-Site': 'same-origin' },
      { Origin: own },
      { Origin: PUBLIC_URL },
    ]) {
      const login = await t
        .http()
        .post('/auth/login')
        .set(headers)
        .send({ email: ADMIN, password: PASSWORD })
        .expect(200);
      const fresh = sessionCookie(login.headers['set-cookie']);
      await t.http().post('/auth/logout').set('Cookie', fresh).set(headers).expect(204);
      await t.http().get('/auth/me').set('Cookie', fresh).expect(401);
    }
  });
});

describe('security headers of the API', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('marks every JSON answer nosniff', async () => {
    for (const response of [
      await t.api().get('/api/projects').expect(200),
      await t.api().post('/api/projects').send({}).expect(400),
      await t.http().get('/api/projects').expect(401),
      await t.api().get('/api/nope').expect(404),
      await t.http().get('/health').expect(200),
      await t.http().post('/auth/login').send({ email: 'x@example.com', password: 'y' }).expect(401),
      await t
        .api()
        .post('/api/projects')
        .set('Content-Type', 'application/json')
        .send('{"name":')
        .expect(400),
    ]) {
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
