import * as Sentry from '@sentry/node';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { brotliCompressSync, createGzip, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { QueueName } from '../src/common/queues';
import { QueuedEvent, digestJobId } from '../src/digest/digest-job';
import { redisOptions } from '../src/redis/redis.module';
import { startTestApp, TestApp } from './helpers/app';

const FIXTURES = [
  join(__dirname, 'fixtures'),
  join(__dirname, '../../shared/fixtures/sentry-javascript-node-10.78.0'),
].find((dir) => existsSync(join(dir, 'exception-event.envelope')))!;
const fixture = (name: string) => readFileSync(join(FIXTURES, `${name}.envelope`));

const MiB = 1024 * 1024;

interface Project {
  id: number;
  client_key: string;
  dsn: string;
}

function openQueue(t: TestApp): Queue {
  return new Queue(QueueName.Digest, {
    connection: { ...redisOptions(t.config.REDIS_URL), enableOfflineQueue: true },
    prefix: t.config.REDIS_PREFIX,
  });
}

async function createProject(t: TestApp, name = `ingest-${randomUUID().slice(0, 6)}`): Promise<Project> {
  return (await t.api().post('/api/projects').send({ name }).expect(201)).body as Project;
}

const hexOf = (uuid: string) => uuid.replace(/-/g, '');

/** An envelope with one event item; `eventId` goes into the header (32 hex, as SDKs send it). */
function envelope(
  eventId: string,
  options: { length?: boolean; trailingNewline?: boolean; extraHeader?: object } = {},
) {
  const payload = JSON.stringify({ event_id: hexOf(eventId), message: `boom ${eventId}`, level: 'error' });
  const itemHeader =
    options.length === false ? { type: 'event' } : { type: 'event', length: Buffer.byteLength(payload) };
  const text = [
    JSON.stringify({ event_id: hexOf(eventId), sent_at: new Date().toISOString(), ...options.extraHeader }),
    JSON.stringify(itemHeader),
    payload,
  ].join('\n');
  return { body: Buffer.from(options.trailingNewline === false ? text : `${text}\n`), payload };
}

/** A raw POST over node:http, for bodies supertest would not produce (chunked streams). */
function rawPost(
  url: string,
  headers: Record<string, string>,
  write: (request: ReturnType<typeof httpRequest>) => Promise<void>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
    });
    request.on('error', reject);
    write(request).then(
      () => request.end(),
      (error: unknown) => reject(error as Error),
    );
  });
}

describe('ingest', () => {
  let t: TestApp;
  let queue: Queue;
  let project: Project;
  let path: string;
  let auth: string;

  const jobCount = () => queue.getWaitingCount();
  const jobData = async (projectId: number, eventId: string) =>
    (await queue.getJob(digestJobId(projectId, eventId)))?.data as QueuedEvent | undefined;

  /** Runs `send`, expects the status and an `{error}` body, and that no job was added. */
  async function expectRejected(status: number, send: () => Promise<{ status: number; body: unknown }>) {
    const before = await jobCount();
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: expect.any(String) });
    expect(await jobCount()).toBe(before);
    return response.body as { error: string };
  }

  beforeAll(async () => {
    t = await startTestApp({ APP_ROLE: 'api' });
    queue = openQueue(t);
    project = await createProject(t);
    path = `/api/${project.id}/envelope/`;
    auth = `Sentry sentry_version=7, sentry_key=${hexOf(project.client_key)}, sentry_client=test/1.0`;
  });
  afterAll(async () => {
    await queue.close();
    await t.close();
  });

  describe('client key', () => {
    const variants: [
      string,
      (p: Project) => { query?: string; headers?: Record<string, string>; dsn?: string },
    ][] = [
      [
        'the sentry_key query parameter',
        (p) => ({ query: `?sentry_key=${hexOf(p.client_key)}&sentry_version=7` }),
      ],
      [
        'X-Sentry-Auth',
        (p) => ({
          headers: { 'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${hexOf(p.client_key)}` },
        }),
      ],
      [
        'Authorization: Sentry',
        (p) => ({ headers: { Authorization: `Sentry sentry_key=${p.client_key}, sentry_version=7` } }),
      ],
      ['X-Client-Auth with a bare key', (p) => ({ headers: { 'X-Client-Auth': p.client_key } })],
      [
        'X-Client-Auth with a bare undashed key',
        (p) => ({ headers: { 'X-Client-Auth': hexOf(p.client_key).toUpperCase() } }),
      ],
      [
        'X-Client-Auth in the Sentry form',
        (p) => ({ headers: { 'X-Client-Auth': `Sentry sentry_key=${hexOf(p.client_key)}` } }),
      ],
      ['the envelope header dsn', (p) => ({ dsn: p.dsn })],
    ];

    it.each(variants)('accepts %s', async (_name, variant) => {
      const { query = '', headers = {}, dsn } = variant(project);
      const eventId = randomUUID();
      const { body, payload } = envelope(eventId, { extraHeader: dsn ? { dsn } : {} });
      const response = await t.http().post(`${path}${query}`).set(headers).send(body).expect(200);
      expect(response.body).toEqual({ id: hexOf(eventId) });
      const job = await jobData(project.id, eventId);
      expect(job).toMatchObject({ projectId: project.id, eventId, payload });
      expect(job?.receivedAt).toBeGreaterThan(Date.now() - 60_000);
    });

    it('rejects a wrong key, a wrong project, a malformed key and a missing key with 401', async () => {
      const other = await createProject(t);
      const send =
        (url: string, headers: Record<string, string> = {}, extraHeader: object = {}) =>
        () =>
          t.http().post(url).set(headers).send(envelope(randomUUID(), { extraHeader }).body);
      const wrongKey = { 'X-Sentry-Auth': `Sentry sentry_key=${hexOf(randomUUID())}` };
      await expectRejected(401, send(path, wrongKey));
      await expectRejected(401, send(`/api/${other.id}/envelope/`, { 'X-Client-Auth': project.client_key }));
      await expectRejected(401, send('/api/999999/envelope/', { 'X-Client-Auth': project.client_key }));
      await expectRejected(401, send(path, { 'X-Client-Auth': 'not-a-key' }));
      await expectRejected(401, send(path));
      await expectRejected(401, send(`${path}?sentry_key=${hexOf(other.client_key)}`));
      // A dsn naming another project or carrying another project's key.
      await expectRejected(401, send(path, {}, { dsn: other.dsn }));
      await expectRejected(401, send(path, {}, { dsn: other.dsn.replace(/\/\d+$/, `/${project.id}`) }));
      // Without a key, a malformed body is still a 401: nothing is said about it.
      await expectRejected(401, () => t.http().post(path).send('garbage'));
      await expectRejected(401, () => t.http().post(`/api/${project.id}/store/`).send('{}'));
      const body = await expectRejected(401, send(path));
      expect(body.error).toMatch(/client key/);
    });

    it('rejects a project id that is not an integer with 400', async () => {
      await expectRejected(400, () =>
        t.http().post('/api/abc/envelope/').set('X-Client-Auth', project.client_key).send('x'),
      );
    });
  });

  describe('envelope format', () => {
    it.each([
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ])('reads an event with length=%s, trailing newline=%s', async (length, trailingNewline) => {
      const eventId = randomUUID();
      const { body, payload } = envelope(eventId, { length, trailingNewline });
      await t
        .http()
        .post(path)
        .set('X-Sentry-Auth', auth)
        .send(body)
        .expect(200, { id: hexOf(eventId) });
      expect((await jobData(project.id, eventId))?.payload).toBe(payload);
    });

    it('serves the path without the trailing slash', async () => {
      const eventId = randomUUID();
      await t
        .http()
        .post(`/api/${project.id}/envelope`)
        .set('X-Sentry-Auth', auth)
        .send(envelope(eventId).body)
        .expect(200);
      expect(await jobData(project.id, eventId)).toBeDefined();
    });

    it('queues the exception fixture with its event id and sdk', async () => {
      const body = fixture('exception-event');
      const response = await t.http().post(path).set('X-Sentry-Auth', auth).send(body).expect(200);
      expect(response.body).toEqual({ id: 'b216050c5fa44553abf1b94b8ddb884c' });
      const job = await jobData(project.id, 'b216050c-5fa4-4553-abf1-b94b8ddb884c');
      expect(job?.payload).toBe(body.toString().split('\n')[2]);
      expect(job?.sdk).toEqual({ name: 'sentry.javascript.node', version: '10.78.0' });
    });

    it('queues the message fixture', async () => {
      const response = await t
        .http()
        .post(path)
        .set('X-Sentry-Auth', auth)
        .send(fixture('message-event'))
        .expect(200);
      expect(response.body).toEqual({ id: 'c51a5dce077c48ddb0cb337ad844b874' });
      expect(await jobData(project.id, 'c51a5dce-077c-48dd-b0cb-337ad844b874')).toBeDefined();
    });

    it('accepts and drops a session-only envelope', async () => {
      const before = await jobCount();
      await t.http().post(path).set('X-Sentry-Auth', auth).send(fixture('session')).expect(200, {});
      expect(await jobCount()).toBe(before);
    });

    it('accepts and drops attachments, transactions, client reports and unknown items beside the event', async () => {
      const eventId = randomUUID();
      const attachment = 'binary\ndata\n';
      const payload = JSON.stringify({ message: 'with attachments' });
      const body = [
        JSON.stringify({ event_id: hexOf(eventId) }),
        JSON.stringify({ type: 'attachment', length: Buffer.byteLength(attachment), filename: 'a.txt' }),
        attachment,
        JSON.stringify({ type: 'client_report' }),
        '{"discarded_events":[]}',
        '',
        JSON.stringify({ type: 'event' }),
        payload,
        JSON.stringify({ type: 'transaction' }),
        '{"type":"transaction"}',
        JSON.stringify({ type: 'brand_new_type' }),
        '{}',
      ].join('\n');
      await t
        .http()
        .post(path)
        .set('X-Sentry-Auth', auth)
        .send(body)
        .expect(200, { id: hexOf(eventId) });
      expect((await jobData(project.id, eventId))?.payload).toBe(payload);
    });

    it('takes the event id from the payload, or generates one', async () => {
      const eventId = randomUUID();
      const fromPayload = `{}\n{"type":"event"}\n{"event_id":"${hexOf(eventId)}","message":"m"}\n`;
      await t
        .http()
        .post(path)
        .set('X-Sentry-Auth', auth)
        .send(fromPayload)
        .expect(200, { id: hexOf(eventId) });
      expect(await jobData(project.id, eventId)).toBeDefined();

      const generated = await t
        .http()
        .post(path)
        .set('X-Sentry-Auth', auth)
        .send('{}\n{"type":"event"}\n{"message":"m"}\n')
        .expect(200);
      expect(generated.body.id).toMatch(/^[0-9a-f]{32}$/);
      const id = generated.body.id as string;
      const dashed = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
      expect(await jobData(project.id, dashed)).toBeDefined();
    });

    it('queues a re-sent event once', async () => {
      const eventId = randomUUID();
      const { body } = envelope(eventId);
      const before = await jobCount();
      await t
        .http()
        .post(path)
        .set('X-Sentry-Auth', auth)
        .send(body)
        .expect(200, { id: hexOf(eventId) });
      await t
        .http()
        .post(path)
        .set('X-Sentry-Auth', auth)
        .send(body)
        .expect(200, { id: hexOf(eventId) });
      expect(await jobCount()).toBe(before + 1);
    });

    it('serves the legacy store endpoint', async () => {
      const eventId = randomUUID();
      const payload = JSON.stringify({ event_id: hexOf(eventId), message: 'stored' });
      await t
        .http()
        .post(`/api/${project.id}/store/`)
        .set('X-Sentry-Auth', auth)
        .set('Content-Type', 'application/json')
        .send(payload)
        .expect(200, { id: hexOf(eventId) });
      expect((await jobData(project.id, eventId))?.payload).toBe(payload);
      await expectRejected(400, () =>
        t.http().post(`/api/${project.id}/store/`).set('X-Sentry-Auth', auth).send('[1]'),
      );
    });
  });

  describe('encodings', () => {
    const encoders: [string, string | undefined, (body: Buffer) => Buffer, string][] = [
      ['gzip', 'gzip', gzipSync, 'application/x-sentry-envelope'],
      ['deflate (zlib)', 'deflate', deflateSync, 'application/x-sentry-envelope'],
      ['deflate (raw)', 'deflate', deflateRawSync, 'application/x-sentry-envelope'],
      ['br', 'br', brotliCompressSync, 'application/x-sentry-envelope'],
      ['identity', 'identity', (body) => body, 'application/x-sentry-envelope'],
      ['no encoding, text/plain (browsers)', undefined, (body) => body, 'text/plain;charset=UTF-8'],
      // (a string: superagent would JSON-encode a Buffer sent as application/json)
      [
        'no encoding, application/json',
        undefined,
        (body) => body.toString() as unknown as Buffer,
        'application/json',
      ],
    ];
    it.each(encoders)('accepts %s', async (_name, encoding, encode, contentType) => {
      const eventId = randomUUID();
      const { body, payload } = envelope(eventId);
      const request = t.http().post(path).set('X-Sentry-Auth', auth).set('Content-Type', contentType);
      if (encoding) request.set('Content-Encoding', encoding);
      await request.send(encode(body)).expect(200, { id: hexOf(eventId) });
      expect((await jobData(project.id, eventId))?.payload).toBe(payload);
    });

    it('accepts a gzipped store body', async () => {
      const eventId = randomUUID();
      await t
        .http()
        .post(`/api/${project.id}/store/`)
        .set('X-Sentry-Auth', auth)
        .set('Content-Encoding', 'gzip')
        .send(gzipSync(JSON.stringify({ event_id: hexOf(eventId), message: 'x' })))
        .expect(200, { id: hexOf(eventId) });
    });
  });

  describe('bad input', () => {
    const post =
      (body: Buffer | string, headers: Record<string, string> = {}) =>
      () =>
        t.http().post(path).set('X-Sentry-Auth', auth).set(headers).send(body);

    it.each([
      ['an empty body', ''],
      ['a non-JSON envelope header', 'hello\n{"type":"event"}\n{}\n'],
      ['a length past the end', '{}\n{"type":"event","length":500}\n{"message":"short"}\n'],
      ['an event payload that is not an object', '{}\n{"type":"event"}\n["not","an","object"]\n'],
      ['an event payload that is not JSON', '{}\n{"type":"event"}\n{not json}\n'],
      ['an event_id that is not a UUID', '{"event_id":"nope"}\n{"type":"event"}\n{}\n'],
    ])('rejects %s with 400', async (_name, body) => {
      await expectRejected(400, post(body));
    });

    it('rejects corrupt gzip and corrupt br with 400', async () => {
      const gz = gzipSync(envelope(randomUUID()).body);
      gz.fill(0x41, 12, 40);
      await expectRejected(400, post(gz, { 'Content-Encoding': 'gzip' }));
      await expectRejected(400, post(Buffer.from('definitely not gzip'), { 'Content-Encoding': 'gzip' }));
      await expectRejected(
        400,
        post(Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02, 0x03]), { 'Content-Encoding': 'br' }),
      );
      // Truncated: the stream ends before the compressed data does.
      await expectRejected(
        400,
        post(gzipSync(envelope(randomUUID()).body).subarray(0, 30), { 'Content-Encoding': 'gzip' }),
      );
    });

    it('rejects an unknown encoding with 415', async () => {
      const body = await expectRejected(
        415,
        post(envelope(randomUUID()).body, { 'Content-Encoding': 'compress' }),
      );
      expect(body.error).toMatch(/encoding/);
      await expectRejected(415, post(envelope(randomUUID()).body, { 'Content-Encoding': 'zstd' }));
    });

    it('rejects a body over 20 MiB with 413 (declared and streamed)', async () => {
      const big = Buffer.alloc(21 * MiB, 0x61);
      await expectRejected(413, post(big));
      const before = await jobCount();
      const streamed = await rawPost(`${t.url}${path}`, { 'X-Sentry-Auth': auth }, async (request) => {
        const { body } = envelope(randomUUID());
        request.write(body);
        const chunk = Buffer.alloc(MiB, 0x0a); // empty lines: a valid envelope, only too large
        for (let i = 0; i < 21 && !request.destroyed; i++) {
          if (!request.write(chunk)) await new Promise((resolve) => request.once('drain', resolve));
        }
      });
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.body)).toEqual({ error: expect.stringMatching(/larger than/) });
      expect(await jobCount()).toBe(before);
      // The server still answers.
      await t.http().post(path).set('X-Sentry-Auth', auth).send(envelope(randomUUID()).body).expect(200);
    });

    it('rejects a gzip bomb past 100 MiB with 413 without holding it in memory', async () => {
      const header = Buffer.from(`{}\n{"type":"attachment","length":${200 * MiB}}\n`);
      const bomb = await new Promise<Buffer>((resolve, reject) => {
        const gzip = createGzip({ level: 9 });
        const chunks: Buffer[] = [];
        gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
        gzip.on('end', () => resolve(Buffer.concat(chunks)));
        gzip.on('error', reject);
        gzip.write(header);
        const zeros = Buffer.alloc(MiB);
        for (let i = 0; i < 200; i++) gzip.write(zeros);
        gzip.end();
      });
      expect(bomb.length).toBeLessThan(MiB);
      const rssBefore = process.memoryUsage().rss;
      const body = await expectRejected(413, post(bomb, { 'Content-Encoding': 'gzip' }));
      expect(body.error).toMatch(/decompressed body is larger than/);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(60 * MiB);
      // Plain zeros (not even an envelope) are also too large, rather than merely malformed.
      await expectRejected(413, post(gzipSync(Buffer.alloc(110 * MiB)), { 'Content-Encoding': 'gzip' }));
    });

    it('rejects an event item over 1 MiB with 413', async () => {
      const payload = JSON.stringify({ message: 'x'.repeat(MiB) });
      await expectRejected(413, post(`{}\n{"type":"event","length":${payload.length}}\n${payload}\n`));
      await expectRejected(413, post(`{}\n{"type":"event"}\n${payload}\n`));
      await expectRejected(
        413,
        post(gzipSync(`{}\n{"type":"event"}\n${payload}\n`), { 'Content-Encoding': 'gzip' }),
      );
      await expectRejected(413, () =>
        t.http().post(`/api/${project.id}/store/`).set('X-Sentry-Auth', auth).send(payload),
      );
    });
  });

  it('answers the CORS preflight and exposes the rate-limit headers', async () => {
    const preflight = await t
      .http()
      .options(path)
      .set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,x-sentry-auth')
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toMatch(/POST/);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/X-Sentry-Auth/i);
    const exposed = (preflight.headers['access-control-expose-headers'] ?? '').toLowerCase();
    expect(exposed).toContain('retry-after');
    expect(exposed).toContain('x-sentry-rate-limits');

    const post = await t
      .http()
      .post(`${path}?sentry_key=${hexOf(project.client_key)}`)
      .set('Origin', 'https://app.example.com')
      .set('Content-Type', 'text/plain;charset=UTF-8')
      .send(envelope(randomUUID()).body)
      .expect(200);
    expect(post.headers['access-control-allow-origin']).toBe('*');
    expect(post.headers['access-control-expose-headers'].toLowerCase()).toContain('x-sentry-rate-limits');
  });

  it('reports the digest backlog in readiness and metrics', async () => {
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body.digest_backlog).toBe(await jobCount());
    const metrics = await t.http().get('/metrics').expect(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/^error_tracker_digest_backlog \d+$/m);
    expect(metrics.text).toMatch(/^error_tracker_ingest_envelopes_accepted_total [1-9]\d*$/m);
    expect(metrics.text).toMatch(/^error_tracker_ingest_envelopes_rejected_total\{status="401"\} [1-9]\d*$/m);
  });

  describe('with @sentry/node 10', () => {
    let sdkProject: Project;
    beforeAll(async () => {
      sdkProject = await createProject(t, 'sdk');
      // The DSN as the API builds it, pointed at this server (PUBLIC_URL is the default here).
      const dsn = `http://${hexOf(sdkProject.client_key)}@127.0.0.1:${t.port}/${sdkProject.id}`;
      expect(sdkProject.dsn).toMatch(
        new RegExp(`^http://${hexOf(sdkProject.client_key)}@localhost:\\d+/${sdkProject.id}$`),
      );
      Sentry.init({ dsn, defaultIntegrations: false, tracesSampleRate: 0 });
    });
    afterAll(() => Sentry.close(2_000));

    it('queues a captured exception under the SDK event id', async () => {
      const eventId = Sentry.captureException(new TypeError('sdk says hello'));
      expect(await Sentry.flush(5_000)).toBe(true);
      const dashed = `${eventId.slice(0, 8)}-${eventId.slice(8, 12)}-${eventId.slice(12, 16)}-${eventId.slice(16, 20)}-${eventId.slice(20)}`;
      const job = await jobData(sdkProject.id, dashed);
      expect(job).toBeDefined();
      const event = JSON.parse(job!.payload);
      expect(event.exception.values[0]).toMatchObject({ type: 'TypeError', value: 'sdk says hello' });
      expect(job!.sdk?.name).toBe('sentry.javascript.node');
    });
  });
});

describe('ingest rate limits', () => {
  let t: TestApp;
  let queue: Queue;

  beforeAll(async () => {
    t = await startTestApp({ APP_ROLE: 'api', MAX_EVENTS_PER_MINUTE: '5', MAX_EVENTS_PER_HOUR: '0' });
    queue = openQueue(t);
  });
  afterAll(async () => {
    await queue.close();
    await t.close();
  });

  it('answers the 6th event of a minute with 429, Retry-After and X-Sentry-Rate-Limits, and drops it', async () => {
    // Six requests must land in one fixed window.
    const second = new Date().getUTCSeconds();
    if (second >= 57) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    const project = await createProject(t);
    const other = await createProject(t);
    const send = (p: Project, eventId: string) =>
      t.http().post(`/api/${p.id}/envelope/`).set('X-Client-Auth', p.client_key).send(envelope(eventId).body);
    for (let i = 0; i < 5; i++) await send(project, randomUUID()).expect(200);
    const dropped = randomUUID();
    const response = await send(project, dropped).expect(429);
    expect(response.body).toEqual({ error: expect.stringMatching(/^rate limit exceeded/) });
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(response.headers['x-sentry-rate-limits']).toMatch(
      new RegExp(`^${retryAfter}:default;error;[a-z_;]+:project$`),
    );
    expect(await queue.getJob(digestJobId(project.id, dropped))).toBeUndefined();
    expect(await queue.getWaitingCount()).toBe(5);
    // Sessions have a rate-limit category of their own: a project over its event limit still
    // sends them (see test/release-health.e2e-spec.ts). Other projects have their own counters.
    await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('X-Client-Auth', project.client_key)
      .send(fixture('session'))
      .expect(200);
    await send(other, randomUUID()).expect(200);
  });
});

describe('ingest without Redis', () => {
  it.each([
    ['with rate limits', {}],
    ['without rate limits', { MAX_EVENTS_PER_MINUTE: '0', MAX_EVENTS_PER_HOUR: '0' }],
  ])('answers 503 quickly, %s', async (_name, limits) => {
    // The project is created through an app with Redis, in the same database.
    const withRedis = await startTestApp({ APP_ROLE: 'api' });
    const project = await createProject(withRedis);
    await withRedis.close();
    const t = await startTestApp({ APP_ROLE: 'api', REDIS_URL: 'redis://127.0.0.1:1', ...limits });
    try {
      const started = Date.now();
      const response = await t
        .http()
        .post(`/api/${project.id}/envelope/`)
        .set('X-Client-Auth', project.client_key)
        .send(envelope(randomUUID()).body);
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ error: expect.any(String) });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await t.close();
    }
  });
});
