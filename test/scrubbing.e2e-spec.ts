/**
 * Scrubbing end to end, with the server as a separate process whose log is read: events with
 * secrets planted at random places (fast-check) go through the real ingest, queue and digest, and
 * none of the secrets is found afterwards in any text column of any table, in the log (at debug
 * level) or in an alert's webhook payload. Also: @sentry/node with `sendDefaultPii` on an Express
 * login form, the settings API and its bad inputs, and settings that apply to new events.
 */
import fc from 'fast-check';
import { ChildProcess, fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './helpers/app';
import { plantedEvent } from './helpers/planted-secrets';
import { eventually, ServedEvent, storedEvent } from './helpers/queues';
import { testDatabaseUrl, TEST_REDIS_URL } from './helpers/test-env';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';
import { freePort } from './helpers/ports';

const ROOT = join(__dirname, '..');

interface Project {
  id: number;
  name: string;
  client_key: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');


describe('scrubbing (the server as a separate process, reading its log)', () => {
  let t: TestApp;
  let server: ChildProcess;
  let serverUrl: string;
  let output = '';
  let receiver: WebhookReceiver;
  let db: DataSource;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // The API of an in-process app on the same database creates projects and reads the results.
    t = await startTestApp({ APP_ROLE: 'api' });
    db = t.app.get(DataSource);
    const port = await freePort();
    serverUrl = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATABASE_URL: testDatabaseUrl(),
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: `test-scrub-${randomUUID().slice(0, 8)}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        APP_ROLE: 'all',
        LOG_LEVEL: 'debug',
        RUST_LOG: '',
        ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
        SERVE_DASHBOARD: 'false',
        CREATE_SUPERUSER: '',
        RETENTION_SCHEDULE: 'off',
      },
    });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // ts-node compiles the server as it boots: seconds on an idle machine, minutes on a busy one.
    await eventually(async () => (await request(serverUrl).get('/health')).ok, 180_000);
  }, 240_000);

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      let timer: NodeJS.Timeout | undefined;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    }
    await t?.close();
    await receiver?.close();
  });

  const createProject = async (name: string): Promise<Project> =>
    (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `${name} ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;

  /** Sends one event to the server process and waits until it is stored. */
  async function send(project: Project, event: Record<string, unknown>): Promise<ServedEvent> {
    const eventId = randomUUID();
    await request(serverUrl)
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .type('text/plain')
      .send(['{}', '{"type":"event"}', JSON.stringify({ event_id: hex(eventId), ...event })].join('\n'))
      .expect(200);
    return storedEvent(t, eventId, 60_000);
  }

  /** Every text, JSON and text array column of every table (partitioned tables through their parent). */
  async function textColumns(): Promise<{ table: string; column: string }[]> {
    return db.query(`
      SELECT c.relname AS table, a.attname AS column
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid
       WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
         AND a.attnum > 0 AND NOT a.attisdropped
         AND a.atttypid IN ('text'::regtype, 'varchar'::regtype, 'json'::regtype, 'jsonb'::regtype, 'text[]'::regtype)
       ORDER BY 1, 2`);
  }

  async function foundInDatabase(secrets: string[]): Promise<string[]> {
    const patterns = secrets.map((secret) => `%${secret}%`);
    const found: string[] = [];
    for (const { table, column } of await textColumns()) {
      const rows: { text: string }[] = await db.query(
        `SELECT "${column}"::text AS text FROM "${table}" WHERE "${column}"::text LIKE ANY($1) LIMIT 5`,
        [patterns],
      );
      for (const row of rows)
        for (const secret of secrets)
          if (row.text.includes(secret)) found.push(`${table}.${column}: ${secret}`);
    }
    return found;
  }

  it('leaves no planted secret in PostgreSQL, the log or an alert', async () => {
    const project = await createProject('Planted');
    const channel = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: `hook ${project.id}`, channel_type: 'webhook', config: { url: receiver.url } })
      .expect(201);
    await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({ name: 'every new issue', alert_type: 'new_issue', channel_ids: [channel.body.id] })
      .expect(201);

    const seed = Date.now();
    const samples = fc.sample(plantedEvent, { numRuns: 30, seed });
    const stored = await Promise.all(samples.map(({ event }) => send(project, event)));
    const secrets = samples.flatMap((sample) => sample.secrets);
    expect(stored.every((event) => Array.isArray(event.scrubbed) && event.scrubbed.length > 0)).toBe(true);

    // Each new issue alerted once; the webhook payloads carry the scrubbed titles.
    const issueCount = new Set(stored.map((event) => event.issue_id)).size;
    const ofProject = () =>
      receiver.received.filter((hook) => JSON.stringify(hook.body).includes(project.name));
    await eventually(async () => ofProject().length >= issueCount, 60_000);
    const alertText = JSON.stringify(ofProject());

    const leaks = {
      database: await foundInDatabase(secrets),
      log: secrets.filter((secret) => output.includes(secret)),
      alerts: secrets.filter((secret) => alertText.includes(secret)),
    };
    // The seed reproduces the events: fc.sample(plantedEvent, { numRuns: 30, seed }).
    expect({ seed, leaks }).toEqual({ seed, leaks: { database: [], log: [], alerts: [] } });
    expect(output).toContain('new issue');
  }, 180_000);

  it('scrubs what @sentry/node sends with sendDefaultPii from an Express login form', async () => {
    const project = await createProject('Login');
    const dsn = `http://${hex(project.client_key)}@${serverUrl.slice('http://'.length)}/${project.id}`;
    const child = fork(join(__dirname, 'helpers/node-login-app.js'), [dsn], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const password = `pw-${randomUUID().slice(0, 8)}`;
    const session = `sess-${randomUUID().slice(0, 8)}`;
    const bearer = `tok-${randomUUID().slice(0, 8)}`;
    try {
      const { port } = await new Promise<{ port: number }>((resolve) =>
        child.once('message', resolve as never),
      );
      const response = await fetch(`http://127.0.0.1:${port}/login?next=/account&access_token=${bearer}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Cookie: `sessionid=${session}; theme=dark`,
          Authorization: `Bearer ${bearer}`,
        },
        body: `username=ann&password=${password}`,
      });
      expect(response.status).toBe(500);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('exit');
      await exited;
    }
    const issues = await eventually(async () => {
      const list = await t.api().get(`/api/projects/${project.id}/issues`);
      return list.status === 200 && list.body.data.length > 0 && (list.body.data as { id: number }[]);
    }, 60_000);
    const latest = await t.api().get(`/api/issues/${issues[0].id}/events/latest`).expect(200);
    const event = latest.body as ServedEvent & {
      request: Record<string, unknown>;
      scrubbed: { path: string; rule: string }[];
    };
    expect(event.request.data).toBe('username=ann&password=[Filtered]');
    expect(JSON.stringify(event)).not.toContain(password);
    expect(JSON.stringify(event)).not.toContain(session);
    expect(JSON.stringify(event)).not.toContain(bearer);
    expect(event.scrubbed.map((entry) => entry.rule)).toEqual(
      expect.arrayContaining(['sensitive_key', 'authorization_header', 'cookie_header']),
    );
    expect(await foundInDatabase([password, session, bearer])).toEqual([]);
  }, 120_000);

  it('serves and changes the settings, audited, refusing bad input with the reason', async () => {
    const project = await createProject('Settings');
    const path = `/api/projects/${project.id}/data-protection`;
    expect((await t.api().get(path).expect(200)).body).toMatchObject({
      project_id: project.id,
      scrub_data: true,
      scrub_ip_addresses: false,
      sensitive_fields: [],
      safe_fields: [],
      updated_at: null,
      default_sensitive_fields: expect.arrayContaining(['password', 'token', 'secret']),
    });
    const changed = await t
      .api()
      .patch(path)
      .send({ sensitive_fields: [' national_id ', 'national_id', 'dob'], safe_fields: ['auth_provider'] })
      .expect(200);
    expect(changed.body).toMatchObject({
      sensitive_fields: ['national_id', 'dob'],
      safe_fields: ['auth_provider'],
    });
    expect(changed.body.updated_at).toEqual(expect.any(String));

    const tooMany = Array.from({ length: 101 }, (_, index) => `field_${index}`);
    await t
      .api()
      .patch(path)
      .send({ sensitive_fields: tooMany })
      .expect(400, { error: 'sensitive_fields may hold at most 100 names' });
    await t
      .api()
      .patch(path)
      .send({ safe_fields: [''] })
      .expect(400, { error: 'safe_fields may not hold an empty name' });
    await t.api().patch(path).send({ sensitive_fields: 'password' }).expect(400);
    await t.api().patch(path).send({ scrub_data: 'no' }).expect(400);
    await t.api().patch(path).send({ colour: 'blue' }).expect(400);
    await t.api().patch('/api/projects/999999999/data-protection').send({ scrub_data: false }).expect(404);

    const audit = await t
      .api()
      .get('/api/audit-log')
      .query({ action: 'project.data_protection_update' })
      .expect(200);
    expect(JSON.stringify(audit.body)).toContain('national_id');
  });

  it('applies settings to new events: custom and safe fields, IP addresses, scrubbing off', async () => {
    const custom = await createProject('Custom');
    await t
      .api()
      .patch(`/api/projects/${custom.id}/data-protection`)
      .send({ sensitive_fields: ['national_id'], safe_fields: ['auth_provider'], scrub_ip_addresses: true })
      .expect(200);
    const scrubbed = await send(custom, {
      message: 'signup from 203.0.113.77 failed',
      user: { id: 'u1', ip_address: '203.0.113.77' },
      extra: { national_id: 'NI-12345', auth_provider: 'github', password: 'p4ss' },
    });
    expect(scrubbed).toMatchObject({
      message: 'signup from [Filtered] failed',
      user: { id: 'u1' },
      extra: { national_id: '[Filtered]', auth_provider: 'github', password: '[Filtered]' },
    });
    expect((scrubbed.user as Record<string, unknown>).ip_address).toBeUndefined();

    const off = await createProject('Off');
    await t.api().patch(`/api/projects/${off.id}/data-protection`).send({ scrub_data: false }).expect(200);
    const kept = await send(off, { message: 'kept', extra: { password: 'p4ss' } });
    expect(kept.extra).toEqual({ password: 'p4ss' });
    expect(kept.scrubbed).toBeUndefined();
  }, 120_000);
});
