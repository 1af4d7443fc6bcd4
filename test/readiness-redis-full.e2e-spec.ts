/**
 * Readiness under a Redis that fills up as ingest fills it: a Redis of the test's own, at a
 * `maxmemory` a little above what it holds, with `noeviction`, filled by envelopes until ingest
 * answers 503. `/health/ready` must then name the refusal in `checks.redis_writes`, and say `ok`
 * again once memory is freed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisServer } from './chaos/processes';
import { startTestApp, TestApp } from './helpers/app';
import { freePort } from './helpers/ports';
import { eventually } from './helpers/queues';

const hex = (uuid: string) => uuid.replace(/-/g, '');

/** An envelope of one event with about `bytes` of message: a few of them fill a small Redis. */
function envelope(bytes: number): Buffer {
  const eventId = hex(randomUUID());
  const message = randomBytes(bytes / 2).toString('hex');
  const payload = JSON.stringify({ event_id: eventId, message, level: 'error' });
  return Buffer.from(`${JSON.stringify({ event_id: eventId })}\n${JSON.stringify({ type: 'event' })}\n${payload}\n`);
}

function usedMemory(info: string): number {
  const match = /^used_memory:(\d+)/m.exec(info);
  if (!match) throw new Error(`no used_memory in INFO: ${info.slice(0, 200)}`);
  return Number(match[1]);
}

describe('readiness while Redis is full', () => {
  let redis: RedisServer;
  let dir: string;
  let t: TestApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'redis-ready-'));
    redis = new RedisServer(dir, await freePort(), join(dir, 'redis.log'));
    await redis.start();
    // The api role alone: nothing drains the digest queue, so what ingest writes stays.
    t = await startTestApp({ REDIS_URL: redis.url, APP_ROLE: 'api' });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.shutdown();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports redis_writes refused while ingest is refused, and ok once memory is freed', async () => {
    const project = (await t.api().post('/api/projects').send({ name: 'Filled' }).expect(201)).body as {
      id: number;
      client_key: string;
    };
    const ingest = () =>
      t
        .http()
        .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
        .set('Content-Type', 'application/x-sentry-envelope')
        .send(envelope(32 * 1024));
    expect((await ingest()).status).toBe(200);
    expect((await t.http().get('/health/ready').expect(200)).body.status).toBe('ok');

    // Room for a few dozen envelopes more than Redis holds now, then fill it as ingest would.
    const used = usedMemory((await redis.cli(['INFO', 'memory'])).stdout);
    await redis.cli(['CONFIG', 'SET', 'maxmemory', String(used + 2 * 1024 * 1024)]);
    let sent = 0;
    for (;;) {
      const response = await ingest();
      sent++;
      if (response.status === 503) break;
      expect(response.status).toBe(200);
      if (sent > 2_000) throw new Error('ingest never refused: Redis did not fill up');
    }
    const refusals = /errorstat_OOM:count=(\d+)/.exec((await redis.cli(['INFO', 'errorstats'])).stdout);
    expect(Number(refusals?.[1] ?? 0)).toBeGreaterThan(0);

    // Every answer while ingest is refused says so.
    for (let probe = 0; probe < 3; probe++) {
      expect((await ingest()).status).toBe(503);
      const ready = await t.http().get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.checks.redis_writes).toEqual({ status: 'refused', error: expect.stringMatching(/^OOM /) });
      expect(ready.body.degraded).toEqual(
        expect.arrayContaining([expect.stringMatching(/^Redis refuses writes: OOM /)]),
      );
    }

    await redis.cli(['CONFIG', 'SET', 'maxmemory', '0']);
    await eventually(async () => {
      const response = await t.http().get('/health/ready');
      return response.status === 200 && response.body.status === 'ok';
    });
    expect((await t.http().get('/health/ready')).body.checks.redis_writes).toEqual({ status: 'ok' });
    expect((await ingest()).status).toBe(200);
  });
});
