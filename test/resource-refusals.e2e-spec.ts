/**
 * A PostgreSQL or a Redis that answers but refuses work: readiness says so (200 "degraded", not
 * "ok"), the metrics say so, nothing accepted goes to the failed set, and what an earlier version
 * put there for an outage comes back by itself.
 */
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { freePort } from '../bench/support';
import { QueueName } from '../src/common/queues';
import { DigestJobName, digestJobId, QueuedEvent } from '../src/digest/digest-job';
import { FailedDigestSweeper } from '../src/digest/failed-digest-sweeper';
import { redisOptions } from '../src/redis/redis.module';
import { RedisServer } from './chaos/processes';
import { startTestApp, TestApp } from './helpers/app';
import { eventually, openQueue } from './helpers/queues';
import { testDatabaseUrl } from './helpers/test-env';

const hex = (uuid: string) => uuid.replace(/-/g, '');

function envelope(eventId: string, message: string): Buffer {
  const payload = JSON.stringify({ event_id: hex(eventId), message, level: 'error' });
  return Buffer.from(
    `${JSON.stringify({ event_id: hex(eventId) })}\n${JSON.stringify({ type: 'event' })}\n${payload}\n`,
  );
}

async function send(t: TestApp, project: { id: number; client_key: string }, message: string) {
  const eventId = randomUUID();
  const response = await t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .set('Content-Type', 'application/x-sentry-envelope')
    .send(envelope(eventId, message));
  return { eventId, status: response.status, body: response.body as Record<string, unknown> };
}

async function storedCount(t: TestApp, projectId: number): Promise<number> {
  const rows: { n: number }[] = await t.app
    .get(DataSource)
    .query('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]);
  return rows[0].n;
}

/** A session on the maintenance database: it survives terminating the test database's sessions. */
async function adminClient(): Promise<{ client: Client; database: string }> {
  const url = new URL(testDatabaseUrl());
  const database = url.pathname.slice(1);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  return { client, database };
}

async function endSessions(admin: Client, database: string): Promise<void> {
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [database],
  );
}

describe('PostgreSQL refusing writes (read-only, as a standby after failover)', () => {
  let t: TestApp;
  let admin: Client;
  let database: string;

  beforeAll(async () => {
    ({ client: admin, database } = await adminClient());
    t = await startTestApp({ DIGEST_LAG_DEGRADED_SECONDS: '2' });
  });
  afterAll(async () => {
    await admin.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
    await endSessions(admin, database);
    await admin.end();
    await t.close();
  });

  it('keeps accepting, says "degraded" with the reason, fails no job, and stores everything once writes are back', async () => {
    const project = (await t.api().post('/api/projects').send({ name: 'Read-only' }).expect(201)).body;
    const first = await send(t, project, 'before the failover');
    expect(first.status).toBe(200);
    await eventually(async () => (await storedCount(t, project.id)) === 1);
    const healthy = await t.http().get('/health/ready').expect(200);
    expect(healthy.body).toMatchObject({
      status: 'ok',
      checks: { database_writes: { status: 'ok' }, redis_writes: { status: 'ok' }, digest: { status: 'ok' } },
    });
    expect(healthy.body.degraded).toBeUndefined();

    await admin.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
    await endSessions(admin, database);
    const sent = [];
    for (let index = 0; index < 5; index++) sent.push(await send(t, project, `during ${index}`));
    expect(sent.map((result) => result.status)).toEqual([200, 200, 200, 200, 200]);

    const degraded = await eventually(async () => {
      const response = await t.http().get('/health/ready');
      const body = response.body;
      return response.status === 200 &&
        body.status === 'degraded' &&
        body.checks.digest.status === 'paused' &&
        body.checks.database_writes.status === 'refused'
        ? body
        : undefined;
    }, 30_000);
    expect(degraded.database).toBe('connected');
    expect(degraded.checks.database_writes.error).toMatch(/read-only transaction \(SQLSTATE 25006\)/);
    expect(degraded.checks.digest.paused_reason).toMatch(/SQLSTATE 25006/);
    expect(degraded.degraded).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PostgreSQL refuses writes: .*25006/),
        expect.stringMatching(/^the digest is paused/),
      ]),
    );
    const metrics = await t.http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^error_tracker_database_writable 0$/m);
    expect(metrics.text).toMatch(/^error_tracker_degraded 1$/m);
    expect(metrics.text).toMatch(/^error_tracker_digest_paused_workers 1$/m);
    expect(metrics.text).toMatch(/^error_tracker_digest_oldest_waiting_seconds \d+$/m);

    await admin.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
    await endSessions(admin, database);
    await eventually(async () => (await storedCount(t, project.id)) === 6, 60_000);
    const queue = openQueue(t, QueueName.Digest);
    try {
      expect(await queue.getFailedCount()).toBe(0);
    } finally {
      await queue.close();
    }
    const recovered = await eventually(async () => {
      const response = await t.http().get('/health/ready');
      return response.status === 200 && response.body.status === 'ok' ? response.body : undefined;
    }, 30_000);
    expect(recovered.checks.digest.status).toBe('ok');
    const after = await t.http().get('/metrics').expect(200);
    expect(after.text).toMatch(/^error_tracker_database_writable 1$/m);
    expect(after.text).toMatch(
      /^error_tracker_jobs_failed_by_class\{queue="digest",class="unavailable"\} 0$/m,
    );
  });
});

describe('Redis at maxmemory with noeviction', () => {
  let redis: RedisServer;
  let dir: string;
  let t: TestApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'redis-full-'));
    redis = new RedisServer(dir, await freePort(), join(dir, 'redis.log'));
    await redis.start();
    t = await startTestApp({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await t.close();
    await redis.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says "degraded" naming the OOM while ingest answers 503, and "ok" once memory is raised', async () => {
    const project = (await t.api().post('/api/projects').send({ name: 'Redis full' }).expect(201)).body;
    expect((await send(t, project, 'before')).status).toBe(200);

    await redis.cli(['CONFIG', 'SET', 'maxmemory', '1']);
    const refused = await send(t, project, 'while full');
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: expect.any(String) });
    const degraded = await eventually(async () => {
      const response = await t.http().get('/health/ready');
      return response.status === 200 && response.body.checks.redis_writes.status === 'refused'
        ? response.body
        : undefined;
    });
    expect(degraded).toMatchObject({ status: 'degraded', redis: 'connected', database: 'connected' });
    expect(degraded.checks.redis_writes.error).toMatch(/^OOM /);
    expect(degraded.degraded).toEqual([expect.stringMatching(/^Redis refuses writes: OOM /)]);
    // The queues are still read (Redis refuses a MULTI then, even of reads).
    expect(degraded.digest_backlog).toEqual(expect.any(Number));
    expect(degraded.checks.digest.status).toBe('ok');
    const metrics = await t.http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^error_tracker_redis_writable 0$/m);

    await redis.cli(['CONFIG', 'SET', 'maxmemory', '0']);
    await eventually(async () => {
      const response = await t.http().get('/health/ready');
      return response.status === 200 && response.body.status === 'ok';
    });
    expect((await send(t, project, 'after')).status).toBe(200);
    await eventually(async () => (await storedCount(t, project.id)) === 2);
  });
});

describe('failed jobs an outage put in the failed set', () => {
  it('are put back by the sweeper once the database takes writes; jobs refused as data stay', async () => {
    const prefix = `test-sweep-${randomUUID().slice(0, 8)}`;
    const api = await startTestApp({ APP_ROLE: 'api', REDIS_PREFIX: prefix });
    const held: Queue = openQueue(api, QueueName.Digest);
    const reasons = new Map<string, string>();
    // A stand-in for an earlier version's worker, which failed jobs with these reasons.
    const earlier = new Worker(
      QueueName.Digest,
      async (job) => {
        throw new UnrecoverableError(reasons.get(String(job.id)) ?? 'unexpected job');
      },
      { connection: redisOptions(api.config.REDIS_URL), prefix },
    );
    try {
      const project = (await api.api().post('/api/projects').send({ name: 'Swept' }).expect(201)).body;
      const job = (type: string, reason: string): QueuedEvent & { jobId: string } => {
        const eventId = randomUUID();
        const data = {
          projectId: project.id,
          eventId,
          receivedAt: Date.now(),
          payload: JSON.stringify({ event_id: hex(eventId), exception: { values: [{ type, value: 'x' }] } }),
        };
        const jobId = digestJobId(project.id, eventId);
        reasons.set(jobId, reason);
        return { ...data, jobId };
      };
      const outage = [
        job('InitFileError', 'cannot be stored: could not write init file'),
        job('ReadOnlyError', 'failed: cannot execute INSERT in a read-only transaction (SQLSTATE 25006)'),
      ];
      const refused = job('RefusedError', 'cannot be stored: value too long for type (SQLSTATE 22001)');
      const invalid = job('InvalidError', 'invalid event: event payload is not a JSON object');
      for (const { jobId, ...data } of [...outage, refused, invalid]) {
        await held.add(DigestJobName.Event, data, { jobId });
      }
      await eventually(async () => (await held.getFailedCount()) === 4);
      await earlier.close();

      const worker = await startTestApp({ APP_ROLE: 'worker', REDIS_PREFIX: prefix });
      try {
        expect(await worker.app.get(FailedDigestSweeper).sweep()).toBe(2);
        await eventually(async () => {
          const issues = await api.api().get(`/api/projects/${project.id}/issues`).expect(200);
          const types = issues.body.data.map((issue: { type: string }) => issue.type).sort();
          return types.join() === 'InitFileError,ReadOnlyError';
        });
        const stillFailed = (await held.getFailed()).map((failed) => String(failed.id)).sort();
        expect(stillFailed).toEqual([refused.jobId, invalid.jobId].sort());
        // Nothing more to put back.
        expect(await worker.app.get(FailedDigestSweeper).sweep()).toBe(0);
        const metrics = await api.http().get('/metrics').expect(200);
        expect(metrics.text).toMatch(
          /^error_tracker_jobs_failed_by_class\{queue="digest",class="data"\} 1$/m,
        );
        expect(metrics.text).toMatch(
          /^error_tracker_jobs_failed_by_class\{queue="digest",class="invalid"\} 1$/m,
        );
        expect(metrics.text).toMatch(
          /^error_tracker_jobs_failed_by_class\{queue="digest",class="unavailable"\} 0$/m,
        );
      } finally {
        await worker.close();
      }
    } finally {
      await earlier.close();
      await held.obliterate({ force: true }).catch(() => undefined);
      await held.close();
      await api.close();
    }
  });
});
