import { hostname } from 'node:os';
import { startTestApp, TestApp } from './helpers/app';
import { as, invitedAccount } from './helpers/members';
import { eventually } from './helpers/queues';
import { proxiedTestDatabase } from './helpers/tcp-proxy';

describe('health, CORS and API documentation', () => {
  let t: TestApp;

  beforeAll(async () => {
    // The installation's default (the other tests' apps answer the details publicly).
    t = await startTestApp({ HEALTH_DETAILS: undefined });
  });
  afterAll(() => t.close());

  it('answers liveness and readiness without a token', async () => {
    await t.http().get('/health').expect(200, { status: 'ok' });
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body).toMatchObject({ status: 'ok', database: 'connected', redis: 'connected' });
  });

  it('tells anyone only the statuses, and the details (workers, errors, queues) to admins', async () => {
    // A worker of this process has reported, so that the details have one to name.
    const details = await eventually(async () => {
      const answer = await t.api().get('/health/ready/details').expect(200);
      return answer.body.workers?.length > 0 && answer.body;
    });
    expect(details).toMatchObject({ status: 'ok', database: 'connected', digest_backlog: expect.any(Number) });
    expect(details.workers[0].id).toContain(hostname());

    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body).toEqual({
      status: 'ok',
      database: 'connected',
      redis: 'connected',
      checks: { database_writes: { status: 'ok' }, redis_writes: { status: 'ok' }, digest: { status: 'ok' } },
    });
    expect(JSON.stringify(ready.body)).not.toContain(hostname());

    await t.http().get('/health/ready/details').expect(401);
    const owner = as(t, { token: t.token });
    const member = await invitedAccount(t, owner, 'member');
    const refused = await as(t, { token: member.token }).get('/health/ready/details').expect(403);
    expect(refused.body.error).toEqual(expect.any(String));
    const admin = await invitedAccount(t, owner, 'admin');
    await as(t, { cookie: admin.cookie }).get('/health/ready/details').expect(200);
  });

  it('answers the details to anyone with HEALTH_DETAILS=public', async () => {
    const open = await startTestApp({ HEALTH_DETAILS: 'public' });
    try {
      const ready = await eventually(async () => {
        const answer = await open.http().get('/health/ready').expect(200);
        return answer.body.workers?.length > 0 && answer.body;
      });
      expect(ready).toMatchObject({ status: 'ok', digest_backlog: expect.any(Number) });
      expect(ready.workers[0].id).toContain(hostname());
    } finally {
      await open.close();
    }
  });

  it('answers a CORS preflight with 204 and the headers browser clients need', async () => {
    const response = await t
      .http()
      .options('/api/projects')
      .set('Origin', 'https://dashboard.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,authorization,x-client-auth')
      .expect(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const methods = response.headers['access-control-allow-methods']
      .split(',')
      .map((m: string) => m.trim().toUpperCase());
    expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'OPTIONS']));
    const headers = response.headers['access-control-allow-headers']
      .split(',')
      .map((h: string) => h.trim().toLowerCase());
    expect(headers).toEqual(expect.arrayContaining(['content-type', 'authorization', 'x-client-auth']));
    expect(response.text).toBe('');
  });

  it('sends Access-Control-Allow-Origin on ordinary responses, errors included', async () => {
    const ok = await t.api().get('/api/projects').set('Origin', 'https://dashboard.example.com').expect(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const denied = await t
      .http()
      .get('/api/projects')
      .set('Origin', 'https://dashboard.example.com')
      .expect(401);
    expect(denied.headers['access-control-allow-origin']).toBe('*');
  });

  it('publishes an OpenAPI document covering the management API, and its HTML viewer', async () => {
    const response = await t.http().get('/api/docs-json').expect(200).expect('Content-Type', /json/);
    expect(response.body.openapi).toMatch(/^3\./);
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/projects',
        '/api/projects/{id}',
        '/api/projects/{projectId}/issues',
        '/api/issues/{id}',
        '/api/issues/{issueId}/events',
        '/api/events/{id}',
        '/api/tokens',
        '/api/tokens/{id}',
        '/api/alert-channels',
        '/api/alert-channels/{id}',
        '/api/projects/{projectId}/alert-rules',
        '/api/projects/{projectId}/alert-rules/{ruleId}',
        '/api/projects/{projectId}/alert-history',
        '/auth/login',
        '/health',
        '/health/ready',
      ]),
    );
    expect(response.body.components.schemas.CreateChannelDto.properties.channel_type.enum).toEqual([
      'webhook',
      'email',
      'chat',
    ]);
    expect(response.body.components.schemas.CreateRuleDto.required).toEqual(
      expect.arrayContaining(['name', 'alert_type', 'channel_ids']),
    );
    const html = await t.http().get('/api/docs').redirects(1).expect(200).expect('Content-Type', /html/);
    expect(html.text).toMatch(/swagger/i);
  });
});

describe('readiness when a dependency is down', () => {
  it('answers 503 naming redis when Redis is unreachable', async () => {
    const t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      await t.http().get('/health').expect(200, { status: 'ok' });
      const response = await t.http().get('/health/ready').expect(503);
      expect(response.body).toMatchObject({
        error: 'not ready: redis unreachable',
        database: 'connected',
        redis: 'disconnected',
      });
      // The management API does not need Redis.
      await t.api().get('/api/projects').expect(200);
    } finally {
      await t.close();
    }
  });

  it('answers 503 naming the database when PostgreSQL goes away', async () => {
    const { url, proxy } = await proxiedTestDatabase();
    const t = await startTestApp({ DATABASE_URL: url });
    try {
      await t.http().get('/health/ready').expect(200);
      await proxy.cut();
      // A probe's answer serves for a second: the next one finds the database gone.
      const response = await eventually(async () => {
        const answer = await t.http().get('/health/ready');
        return answer.status === 503 ? answer : undefined;
      });
      expect(response.body).toMatchObject({
        error: 'not ready: database unreachable',
        database: 'disconnected',
        redis: 'connected',
      });
      expect(Object.keys(response.body)).toContain('error');
      await t.http().get('/health').expect(200, { status: 'ok' });
    } finally {
      await t.close();
    }
  });
});

describe('metrics behind METRICS_TOKEN', () => {
  it('are open without it, and need the bearer token with it', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const t = await startTestApp({ METRICS_TOKEN: token });
    try {
      const missing = await t.http().get('/metrics').expect(401);
      expect(missing.body).toEqual({ error: expect.stringMatching(/METRICS_TOKEN/) });
      await t.http().get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789abcdef').expect(401);
      // An API token is not the metrics token.
      await t.http().get('/metrics').set('Authorization', `Bearer ${t.token}`).expect(401);
      const scraped = await t.http().get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
      expect(scraped.text).toMatch(/^error_tracker_ingest_envelopes_accepted_total \d+$/m);
      // Health stays open for load balancers.
      await t.http().get('/health/ready').expect(200);
    } finally {
      await t.close();
    }
  });
});
