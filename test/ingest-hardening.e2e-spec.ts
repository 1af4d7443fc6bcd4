import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import {
  brotliCompressSync,
  Gunzip,
  gzipSync,
  gunzipSync as gunzipSyncOf,
  constants as zlib,
} from 'node:zlib';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { startTestApp, TestApp } from './helpers/app';
import { openQueue } from './helpers/queues';
import { leastCpuMsPerRound } from './helpers/relative-cost';
import { proxiedTestDatabase, startProxy } from './helpers/tcp-proxy';
import { TEST_REDIS_URL } from './helpers/test-env';

interface Project {
  id: number;
  client_key: string;
  dsn: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');

function eventEnvelope(eventId = randomUUID(), header: Record<string, unknown> = {}): Buffer {
  const payload = JSON.stringify({ event_id: hex(eventId), message: 'hardening', level: 'error' });
  return Buffer.from(
    `${JSON.stringify({ event_id: hex(eventId), ...header })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) })}\n${payload}\n`,
  );
}

/**
 * A small body that decodes to `size` bytes: a header line, then a huge "attachment" of zeros.
 * Decoding it whole costs about a second of CPU per 100 MiB.
 */
function bomb(firstLine: string, encoding: 'gzip' | 'br', size = 95 * 1024 * 1024): Buffer {
  const body = Buffer.alloc(size);
  const head = Buffer.from(
    `${firstLine}\n${JSON.stringify({ type: 'attachment', length: size - firstLine.length - 200 })}\n`,
  );
  head.copy(body);
  return encoding === 'br'
    ? brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } })
    : gzipSync(body, { level: 9 });
}

describe('ingest refuses abuse cheaply', () => {
  let t: TestApp;
  let project: Project;

  beforeAll(async () => {
    t = await startTestApp();
    project = (await t.api().post('/api/projects').send({ name: 'Hardening' }).expect(201)).body as Project;
  });
  afterAll(() => t.close());

  it('refuses a no-key gzip bomb after its first line, without decoding the rest', async () => {
    const body = bomb(
      JSON.stringify({ event_id: hex(randomUUID()), dsn: `http://${hex(randomUUID())}@x/${project.id}` }),
      'gzip',
    );
    const send = () =>
      t
        .http()
        .post(`/api/${project.id}/envelope/`)
        .set('Content-Encoding', 'gzip')
        .set('Content-Type', 'application/x-sentry-envelope')
        .send(body);
    await send(); // warm-up: the measurement is of the refusal alone
    // What the server decodes: the output of every gzip decoder that runs in this process (the app
    // runs here), the synchronous ones that look for the first line and the stream decoder.
    let decoded = 0;
    // The module object itself (an ES namespace import is read-only), as the body reader calls it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const zlibModule = require('node:zlib') as Record<string, (...args: unknown[]) => unknown>;
    const gunzipSync = zlibModule.gunzipSync;
    const push = Gunzip.prototype.push;
    const spies = [
      jest.spyOn(zlibModule, 'gunzipSync').mockImplementation((buffer, options) => {
        try {
          const output = gunzipSync(buffer, options) as Buffer;
          decoded += output.length;
          return output;
        } catch (error) {
          // Stopped at its output limit: it decoded that much.
          decoded += (options as { maxOutputLength?: number } | undefined)?.maxOutputLength ?? 0;
          throw error;
        }
      }),
      jest.spyOn(Gunzip.prototype, 'push').mockImplementation(function (this: Gunzip, chunk, encoding) {
        if (chunk) decoded += (chunk as Buffer).length;
        return push.call(this, chunk, encoding);
      }),
    ];
    const rounds = 20;
    const tries = 3;
    let refusing: number;
    try {
      refusing = await leastCpuMsPerRound(
        async () => {
          const responses = await Promise.all(Array.from({ length: rounds }, send));
          expect(responses.map((response) => response.status)).toEqual(Array(rounds).fill(401));
          expect(responses[0].body).toEqual({ error: `unknown client key for project ${project.id}` });
        },
        rounds,
        tries,
      );
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    // A few attempts at the first line, of at most 16 KiB each, not the 95 MiB the bomb decodes to.
    expect(decoded / (tries * rounds)).toBeLessThan(1024 * 1024);
    // What decoding one bomb whole costs, measured on the same machine in the same run. Server and
    // test client share this process: refusing a bomb (and sending it) costs a small part of that.
    const decoding = await leastCpuMsPerRound(() => void gunzipSyncOf(body), 1);
    expect(refusing).toBeLessThan(decoding * 0.2);
  });

  it('refuses a no-key bomb whose first line is not an envelope header with 401, not 400', async () => {
    const response = await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('Content-Encoding', 'gzip')
      .send(gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a'), { level: 9 }));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: `missing client key for project ${project.id}` });
  });

  it('asks brotli senders for the key outside the body, before decoding anything', async () => {
    const body = bomb(JSON.stringify({ dsn: project.dsn }), 'br');
    const response = await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('Content-Encoding', 'br')
      .send(body);
    expect(response.status).toBe(401);
    expect(response.body.error).toMatch(
      /brotli-compressed envelopes need the client key in a header or the query/,
    );
    // With the key outside the body, brotli is read as before.
    const eventId = randomUUID();
    const accepted = await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .set('Content-Encoding', 'br')
      .send(brotliCompressSync(eventEnvelope(eventId)));
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ id: hex(eventId) });
  });

  it('reads the dsn of a gzip envelope whose first line spans several chunks', async () => {
    const eventId = randomUUID();
    const response = await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('Content-Encoding', 'gzip')
      .send(gzipSync(eventEnvelope(eventId, { dsn: project.dsn, pad: 'p'.repeat(12_000) })));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: hex(eventId) });
  });

  it('answers 401, not 500, to a dsn whose key is not even a well-formed escape', async () => {
    const response = await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .send(eventEnvelope(randomUUID(), { dsn: `http://%E0%A4%A@x/${project.id}` }));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: `missing client key for project ${project.id}` });
  });

  it('accepts an envelope whose only key is the dsn of its header', async () => {
    const eventId = randomUUID();
    const response = await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .send(eventEnvelope(eventId, { dsn: project.dsn }))
      .expect(200);
    expect(response.body).toEqual({ id: hex(eventId) });
  });

  it('caps the items of an envelope', async () => {
    const items = Array.from({ length: 1_001 }, () => '{"type":"client_report","length":2}\n{}').join('\n');
    const response = await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .send(`{}\n${items}\n`);
    expect(response.status).toBe(413);
    expect(response.body.error).toMatch(/more than 1000 items/);
  });

  it('caps the length of a header line', async () => {
    const response = await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .send(`{"pad":"${'x'.repeat(20_000)}"}\n`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/header line is too long/);
  });

  it('answers a flood of random keys with at most a query a second, and keeps known keys working', async () => {
    const database = t.app.get(DataSource);
    const queries = jest.spyOn(database, 'query');
    try {
      const started = Date.now();
      const statuses = await Promise.all(
        Array.from({ length: 300 }, () =>
          t
            .http()
            .post(`/api/${project.id}/envelope/?sentry_key=${hex(randomUUID())}`)
            .send(eventEnvelope())
            .then((response) => response.status),
        ),
      );
      const seconds = (Date.now() - started) / 1000;
      expect(new Set(statuses)).toEqual(new Set([401]));
      // (The digest of earlier tests' events may run meanwhile: only key lookups count here.)
      const keyLookups = queries.mock.calls.filter(([sql]) => /\bfrom projects\b/i.test(String(sql)));
      // One a second for the misses, and the reload every 30 s may fall within the flood too.
      expect(keyLookups.length).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
      await t
        .http()
        .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
        .send(eventEnvelope())
        .expect(200);
    } finally {
      queries.mockRestore();
    }
  });

  it('counts the rate limit before reading the body', async () => {
    const limited = await startTestApp({ MAX_EVENTS_PER_MINUTE: '2' });
    try {
      const own = (await limited.api().post('/api/projects').send({ name: 'Limited' }).expect(201))
        .body as Project;
      const path = `/api/${own.id}/envelope/?sentry_key=${hex(own.client_key)}`;
      await limited.http().post(path).send(eventEnvelope()).expect(200);
      // A refused request gives its count back: only accepted events use up the limit.
      await limited.http().post(path).send('{"event_id":1}\nnot json\n').expect(400);
      await limited.http().post(path).send(eventEnvelope()).expect(200);
      // Over the limit, even a malformed or bomb body is refused before it is read.
      const over = await limited.http().post(path).set('Content-Encoding', 'br').send(bomb('{}', 'br'));
      expect(over.status).toBe(429);
      expect(over.headers['retry-after']).toMatch(/^\d+$/);
      expect(over.headers['x-sentry-rate-limits']).toMatch(
        new RegExp(`^${over.headers['retry-after']}:default;error;[a-z_;]+:project$`),
      );
    } finally {
      await limited.close();
    }
  });
});

describe('ingest in outages', () => {
  it('keeps accepting known keys while PostgreSQL is down, and answers 503 (not 500) when it cannot decide', async () => {
    const { url, proxy } = await proxiedTestDatabase();
    const app = await startTestApp({ DATABASE_URL: url, APP_ROLE: 'api' });
    const queue = openQueue(app, QueueName.Digest);
    try {
      const own = (await app.api().post('/api/projects').send({ name: 'Outage' }).expect(201))
        .body as Project;
      await app
        .http()
        .post(`/api/${own.id}/envelope/?sentry_key=${hex(own.client_key)}`)
        .send(eventEnvelope())
        .expect(200);
      await proxy.cut();
      const eventId = randomUUID();
      await app
        .http()
        .post(`/api/${own.id}/envelope/?sentry_key=${hex(own.client_key)}`)
        .send(eventEnvelope(eventId))
        .expect(200);
      expect(await queue.getJob(`${own.id}_${eventId}`)).toBeDefined();
      // A key the last snapshot does not know may belong to a project created since: undecidable.
      const unknown = await app
        .http()
        .post(`/api/${own.id}/envelope/?sentry_key=${hex(randomUUID())}`)
        .send(eventEnvelope());
      expect(unknown.status).toBe(503);
      expect(unknown.body).toEqual({ error: expect.stringMatching(/unavailable/) });
      // The management API needs the database: 503 with the {error} shape, never 500.
      const list = await app.api().get('/api/projects');
      expect(list.status).toBe(503);
      expect(list.body).toEqual({ error: expect.stringMatching(/unavailable/) });
    } finally {
      await proxy.restore();
      await queue.close();
      await app.close();
      await proxy.cut();
    }
  });

  it('answers 503 within 5 s, not never, to an unknown key when PostgreSQL hangs', async () => {
    const { url, proxy } = await proxiedTestDatabase();
    const app = await startTestApp({ DATABASE_URL: url, APP_ROLE: 'api' });
    try {
      const own = (await app.api().post('/api/projects').send({ name: 'Hung database' }).expect(201))
        .body as Project;
      await app
        .http()
        .post(`/api/${own.id}/envelope/?sentry_key=${hex(own.client_key)}`)
        .send(eventEnvelope())
        .expect(200);
      proxy.freeze();
      const started = Date.now();
      const [unknown, known] = await Promise.all([
        app
          .http()
          .post(`/api/${own.id}/envelope/?sentry_key=${hex(randomUUID())}`)
          .send(eventEnvelope()),
        app
          .http()
          .post(`/api/${own.id}/envelope/?sentry_key=${hex(own.client_key)}`)
          .send(eventEnvelope()),
      ]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(unknown.status).toBe(503);
      expect(known.status).toBe(200);
    } finally {
      proxy.thaw();
      await app.close();
      await proxy.cut();
    }
  });

  it('answers 503 within 5 s on every ingest path when Redis hangs', async () => {
    const redisPort = Number(new URL(TEST_REDIS_URL).port || 6379);
    const proxy = await startProxy(redisPort);
    const app = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, APP_ROLE: 'api' });
    try {
      const own = (await app.api().post('/api/projects').send({ name: 'Hung' }).expect(201)).body as Project;
      const path = `/api/${own.id}/envelope/?sentry_key=${hex(own.client_key)}`;
      await app.http().post(path).send(eventEnvelope()).expect(200);
      proxy.freeze();
      const started = Date.now();
      const responses = await Promise.all([
        app.http().post(path).send(eventEnvelope()),
        app
          .http()
          .post(`/api/${own.id}/store/?sentry_key=${hex(own.client_key)}`)
          .send({ message: 'x' }),
        app
          .http()
          .post(`/api/${own.id}/envelope/`)
          .send(eventEnvelope(randomUUID(), { dsn: own.dsn })),
      ]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(responses.map((response) => response.status)).toEqual([503, 503, 503]);
    } finally {
      proxy.thaw();
      await app.close();
      await proxy.cut();
    }
  });

  it('cuts a body trickled byte by byte within the request timeout', async () => {
    const app = await startTestApp({ REQUEST_TIMEOUT_SECONDS: '2' });
    try {
      const own = (await app.api().post('/api/projects').send({ name: 'Slow' }).expect(201)).body as Project;
      const started = Date.now();
      const closedAfter = await new Promise<number>((resolve) => {
        const socket = connect(app.port, '127.0.0.1', () => {
          socket.write(
            `POST /api/${own.id}/envelope/?sentry_key=${hex(own.client_key)} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{`,
          );
          const trickle = setInterval(() => socket.write(' '), 500);
          socket.on('close', () => {
            clearInterval(trickle);
            resolve(Date.now() - started);
          });
          socket.on('error', () => undefined);
        });
        socket.resume();
      });
      expect(closedAfter).toBeLessThan(5_000);
    } finally {
      await app.close();
    }
  });
});
