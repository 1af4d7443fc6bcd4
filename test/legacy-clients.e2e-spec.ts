import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';

/**
 * What each Raven-protocol client sends by default on the legacy store endpoint (method, path and
 * query, Content-Type, Content-Encoding, body encoding, auth header form), from their sources:
 * raven-python, raven-js, raven-node, raven-ruby, sentry-php 1.x, raven-go, raven-java,
 * sentry-java 1.x, SharpRaven and raven-objc.
 */
interface LegacyRequest {
  client: string;
  method?: 'POST' | 'GET';
  query?: (key: string, json: string) => string;
  headers: (key: string) => Record<string, string>;
  body?: (json: string) => Buffer | string;
  eventId: (uuid: string) => string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');
const base64Zlib = (json: string) => deflateSync(Buffer.from(json)).toString('base64');
const secret = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

const CLIENTS: LegacyRequest[] = [
  {
    client: 'raven-python 6.10 (zlib with Content-Encoding: deflate)',
    headers: (key) => ({
      'Content-Type': 'application/octet-stream',
      'Content-Encoding': 'deflate',
      'X-Sentry-Auth': `Sentry sentry_timestamp=1700000000.123, sentry_client=raven-python/6.10.0, sentry_version=6, sentry_key=${key}, sentry_secret=${secret}`,
    }),
    body: (json) => deflateSync(Buffer.from(json)),
    eventId: hex,
  },
  {
    client: 'raven-python 5.5 (base64 of zlib, no Content-Encoding)',
    headers: (key) => ({
      'Content-Type': 'application/octet-stream',
      'X-Sentry-Auth': `Sentry sentry_timestamp=1400000000.5, sentry_client=raven-python/5.5.0, sentry_version=5, sentry_key=${key}, sentry_secret=${secret}`,
    }),
    body: base64Zlib,
    eventId: hex,
  },
  {
    client: 'raven-js 3.27 (query auth, text/plain)',
    query: (key) => `sentry_version=7&sentry_client=raven-js%2F3.27.2&sentry_key=${key}`,
    headers: () => ({ 'Content-Type': 'text/plain;charset=UTF-8' }),
    eventId: hex,
  },
  {
    client: 'raven-js 1.1 (image beacon: GET with sentry_data)',
    method: 'GET',
    query: (key, json) =>
      `sentry_version=4&sentry_client=raven-js%2F1.1.16&sentry_key=${key}&sentry_data=${encodeURIComponent(json)}`,
    headers: () => ({}),
    eventId: hex,
  },
  {
    client: 'raven-js 0.5 (Authentication header, version 2.0)',
    headers: (key) => ({
      'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8',
      Authentication: `Sentry sentry_version=2.0, sentry_timestamp=1300000000000, sentry_key=${key}, sentry_signature=abc`,
    }),
    eventId: hex,
  },
  {
    client: 'raven-node 2.6 (base64 of zlib, version 5, ms timestamp)',
    headers: (key) => ({
      'Content-Type': 'application/octet-stream',
      'X-Sentry-Auth': `Sentry sentry_version=5, sentry_timestamp=1700000000123, sentry_client=raven-node/2.6.4, sentry_key=${key}, sentry_secret=${secret}`,
    }),
    body: base64Zlib,
    eventId: hex,
  },
  {
    client: 'raven-ruby 2.0.0 (base64 of zlib, dashed event id)',
    headers: (key) => ({
      'Content-Type': 'application/octet-stream',
      'X-Sentry-Auth': `Sentry sentry_version=5, sentry_client=raven-ruby/2.0.0, sentry_timestamp=1700000000, sentry_key=${key}, sentry_secret=${secret}`,
    }),
    body: base64Zlib,
    eventId: (uuid) => uuid,
  },
  {
    client: 'sentry-php 1.x without the zlib extension (base64 of JSON)',
    headers: (key) => ({
      'Content-Type': 'application/octet-stream',
      'X-Sentry-Auth': `Sentry sentry_timestamp=1700000000.000000, sentry_client=sentry-php/1.11.0, sentry_version=6, sentry_key=${key}`,
    }),
    body: (json) => Buffer.from(json).toString('base64'),
    eventId: hex,
  },
  {
    client: 'raven-go (large event: base64 of zlib, version 4, no client field)',
    headers: (key) => ({
      'Content-Type': 'application/octet-stream',
      'X-Sentry-Auth': `Sentry sentry_version=4, sentry_key=${key}, sentry_secret=${secret}`,
    }),
    body: base64Zlib,
    eventId: hex,
  },
  {
    client: 'raven-java 8 (no Content-Type, auth without spaces)',
    headers: (key) => ({
      'Content-Type': '',
      'X-Sentry-Auth': `Sentry sentry_version=6,sentry_client=raven-java/8.0.3,sentry_key=${key},sentry_secret=${secret}`,
    }),
    body: base64Zlib,
    eventId: hex,
  },
  {
    client: 'sentry-java 1.7 (gzip with Content-Encoding)',
    headers: (key) => ({
      'Content-Type': 'application/json',
      'Content-Encoding': 'gzip',
      'X-Sentry-Auth': `Sentry sentry_version=6,sentry_client=sentry-java/1.7.30,sentry_key=${key}`,
    }),
    body: (json) => gzipSync(Buffer.from(json)),
    eventId: hex,
  },
  {
    client: 'SharpRaven with compression (raw gzip)',
    headers: (key) => ({
      'Content-Type': 'application/octet-stream',
      'Content-Encoding': 'gzip',
      'X-Sentry-Auth': `Sentry sentry_version=7, sentry_client=SharpRaven/2.4.0.0, sentry_timestamp=1700000000, sentry_key=${key}, sentry_secret=${secret}`,
    }),
    body: (json) => gzipSync(Buffer.from(json)),
    eventId: hex,
  },
  {
    client: 'raven-objc 0.5 (uppercase event id, quoted-free v7 header)',
    headers: (key) => ({
      'Content-Type': 'application/json',
      'X-Sentry-Auth': `Sentry sentry_version=7, sentry_client=raven-objc/0.5.0, sentry_timestamp=721000000, sentry_key=${key}, sentry_secret=${secret}`,
    }),
    eventId: (uuid) => hex(uuid).toUpperCase(),
  },
  {
    client: 'a client that quotes header values and adds a byte order mark',
    headers: (key) => ({
      'Content-Type': 'application/json',
      'X-Sentry-Auth': `Sentry sentry_version="7", sentry_key="${key}"`,
    }),
    body: (json) => `\ufeff${json}`,
    eventId: hex,
  },
];

/** Bytes exactly as given (supertest would re-encode a Buffer sent as application/json). */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    request.on('error', reject);
    if (method === 'GET') request.end();
    else request.end(body);
  });
}

describe('legacy Raven-protocol clients on the store endpoint', () => {
  let t: TestApp;
  let project: { id: number; client_key: string };

  beforeAll(async () => {
    t = await startTestApp();
    project = (await t.api().post('/api/projects').send({ name: 'Legacy' }).expect(201)).body;
  });
  afterAll(() => t.close());

  it.each(CLIENTS.map((client) => [client.client, client] as const))('accepts %s', async (_, client) => {
    const uuid = randomUUID();
    const json = JSON.stringify({
      event_id: client.eventId(uuid),
      message: `legacy ${client.client}`,
      level: 'error',
      platform: 'other',
      timestamp: '2026-11-20T10:00:00',
    });
    const key = hex(project.client_key);
    const path = `/api/${project.id}/store/${client.query ? `?${client.query(key, json)}` : ''}`;
    const response = await send(
      `${t.url}${path}`,
      client.method ?? 'POST',
      client.headers(key),
      client.body ? client.body(json) : json,
    );

    expect(response.status).toBe(200);
    if (client.method === 'GET') {
      expect(response.headers['content-type']).toBe('image/gif');
      expect(response.headers['x-sentry-id']).toBe(hex(uuid));
    } else {
      expect(JSON.parse(response.body)).toEqual({ id: hex(uuid) });
    }
    const stored = await eventually(async () => {
      const event = await t.api().get(`/api/events/${uuid}`);
      return event.status === 200 && event.body;
    });
    expect(stored.message).toBe(`legacy ${client.client}`);
  });

  it('tells legacy clients why it refused, in X-Sentry-Error too', async () => {
    const response = await t
      .http()
      .post(`/api/${project.id}/store/`)
      .set('X-Sentry-Auth', `Sentry sentry_version=5, sentry_key=${hex(randomUUID())}`)
      .send('{}');
    expect(response.status).toBe(401);
    expect(response.headers['x-sentry-error']).toBe(response.body.error);
  });

  it('refuses a body that is neither JSON nor a known encoding with 400', async () => {
    const response = await t
      .http()
      .post(`/api/${project.id}/store/`)
      .set('X-Sentry-Auth', `Sentry sentry_key=${hex(project.client_key)}`)
      .set('Content-Type', 'application/octet-stream')
      .send('eJzLSM3JyQcABiwCFQ'.replace('Q', '!'));
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/not a JSON object|neither JSON/);
  });
});
