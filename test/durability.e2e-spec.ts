import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { QueueName } from '../src/common/queues';
import { DIGEST_JOB_OPTIONS, QueuedEvent, DigestJobName, digestJobId } from '../src/digest/digest-job';
import { redisOptions } from '../src/redis/redis.module';
import { startTestApp, TestApp } from './helpers/app';
import { eventually, openQueue } from './helpers/queues';
import { proxiedTestDatabase } from './helpers/tcp-proxy';
import { testDatabaseUrl, TEST_REDIS_URL } from './helpers/test-env';

function digestJob(projectId: number, type: string, payload?: string): QueuedEvent {
  const eventId = randomUUID();
  return {
    projectId,
    eventId,
    receivedAt: Date.now(),
    payload:
      payload ??
      JSON.stringify({
        event_id: eventId.replace(/-/g, ''),
        exception: { values: [{ type, value: 'durability' }] },
      }),
  };
}

function runCli(args: string[], prefix: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'cli', '--', ...args],
      {
        cwd: join(__dirname, '..'),
        env: {
          ...process.env,
          DATABASE_URL: testDatabaseUrl(),
          REDIS_URL: TEST_REDIS_URL,
          REDIS_PREFIX: prefix,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('a long database outage during the digest', () => {
  it('uses up no attempts: the queue waits for the database and every event is stored once it is back', async () => {
    const prefix = `test-durable-${randomUUID().slice(0, 8)}`;
    const api = await startTestApp({ APP_ROLE: 'api', REDIS_PREFIX: prefix });
    const { url, proxy } = await proxiedTestDatabase();
    const worker = await startTestApp({ APP_ROLE: 'worker', REDIS_PREFIX: prefix, DATABASE_URL: url });
    const queue = openQueue(api, QueueName.Digest);
    try {
      const project = await api.api().post('/api/projects').send({ name: 'Long outage' }).expect(201);
      await proxy.cut();
      // Two attempts 50 ms apart: without the pause these would be used up in well under a second.
      const jobs = Array.from({ length: 20 }, () => digestJob(project.body.id, 'OutageError'));
      await queue.addBulk(
        jobs.map((job) => ({
          name: DigestJobName.Event,
          data: job,
          opts: {
            ...DIGEST_JOB_OPTIONS,
            attempts: 2,
            backoff: { type: 'fixed', delay: 50 },
            jobId: digestJobId(job.projectId, job.eventId),
          },
        })),
      );
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await queue.getFailedCount()).toBe(0);
      const waiting = await queue.getJobs(['wait', 'active', 'delayed', 'prioritized']);
      expect(waiting).toHaveLength(20);
      expect(Math.max(...waiting.map((job) => job.attemptsMade))).toBe(0);

      await proxy.restore();
      const issue = await eventually(async () => {
        const issues = await api.api().get(`/api/projects/${project.body.id}/issues`).expect(200);
        return issues.body.data[0]?.event_count === 20 && issues.body.data[0];
      }, 30_000);
      expect(issue).toMatchObject({ type: 'OutageError', event_count: 20 });
      expect(await queue.getFailedCount()).toBe(0);
    } finally {
      await proxy.restore();
      await queue.close();
      await worker.close();
      await api.close();
      await proxy.cut();
    }
  });
});

describe('failed jobs and workers, as an operator sees them', () => {
  let t: TestApp;
  let queue: Queue;

  beforeAll(async () => {
    t = await startTestApp();
    queue = openQueue(t, QueueName.Digest);
  });
  afterAll(async () => {
    await queue.close();
    await t.close();
  });

  it('shows failed jobs and the last job a worker took in /health/ready and /metrics', async () => {
    const project = await t.api().post('/api/projects').send({ name: 'Poison' }).expect(201);
    const poison = digestJob(project.body.id, 'x', 'not json at all');
    await queue.add(DigestJobName.Event, poison, {
      ...DIGEST_JOB_OPTIONS,
      jobId: digestJobId(poison.projectId, poison.eventId),
    });
    const ready = await eventually(async () => {
      const response = await t.http().get('/health/ready').expect(200);
      return response.body.digest_failed === 1 && Boolean(response.body.digest_last_job_at) && response.body;
    });
    expect(ready.workers).toEqual([
      expect.objectContaining({ id: expect.any(String), last_job_at: expect.any(String) }),
    ]);
    expect(Date.parse(ready.digest_last_job_at)).toBeGreaterThan(Date.now() - 60_000);

    const metrics = await t.http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^error_tracker_jobs_failed\{queue="digest"\} 1$/m);
    expect(metrics.text).toMatch(/^error_tracker_workers 1$/m);
    expect(metrics.text).toMatch(/^error_tracker_digest_last_job_timestamp_seconds [1-9]\d+$/m);
  });

  it('lists, replays and purges failed jobs from the CLI', async () => {
    const project = await t.api().post('/api/projects').send({ name: 'Replay' }).expect(201);
    // Jobs of a queue of their own, failed by a stand-in worker for a reason since fixed.
    const prefix = `${t.config.REDIS_PREFIX}-held`;
    const held = new Queue(QueueName.Digest, {
      connection: { ...redisOptions(t.config.REDIS_URL), enableOfflineQueue: true },
      prefix,
    });
    const good = digestJob(project.body.id, 'ReplayedError');
    const poison = digestJob(project.body.id, 'x', 'not json');
    const failing = new Worker(
      QueueName.Digest,
      async () => {
        throw new UnrecoverableError('disk full');
      },
      { connection: redisOptions(t.config.REDIS_URL), prefix },
    );
    try {
      await held.add(DigestJobName.Event, good, { jobId: digestJobId(good.projectId, good.eventId) });
      await eventually(async () => (await held.getFailedCount()) === 1);
      await failing.close();

      const listed = await runCli(['jobs:failed', '--queue', 'digest'], prefix);
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0])).toMatchObject({
        queue: 'digest',
        id: digestJobId(good.projectId, good.eventId),
        reason: 'disk full',
        subject: { projectId: good.projectId, eventId: good.eventId },
      });
      expect(listed.stdout).not.toContain('ReplayedError'); // payloads stay out of listings

      const retried = await runCli(['jobs:retry', '--queue', 'digest'], prefix);
      expect(retried.stdout.trim()).toBe('retried 1 failed job(s)');
      const job = await held.getJob(digestJobId(good.projectId, good.eventId));
      expect(await job?.getState()).toBe('waiting');
      expect(job?.attemptsMade).toBe(0);
      // A real worker on that queue now stores the replayed event.
      const worker = await startTestApp({ APP_ROLE: 'worker', REDIS_PREFIX: prefix });
      try {
        await eventually(async () => {
          const issues = await t.api().get(`/api/projects/${project.body.id}/issues`).expect(200);
          return issues.body.data[0]?.type === 'ReplayedError';
        });
        await held.add(DigestJobName.Event, poison, {
          ...DIGEST_JOB_OPTIONS,
          jobId: digestJobId(poison.projectId, poison.eventId),
        });
        await eventually(async () => (await held.getFailedCount()) === 1);
      } finally {
        await worker.close();
      }

      const purged = await runCli(['jobs:purge'], prefix);
      expect(purged.stdout.trim()).toBe('purged 1 failed job(s)');
      expect(await held.getFailedCount()).toBe(0);
      expect(await held.getJob(digestJobId(poison.projectId, poison.eventId))).toBeUndefined();
    } finally {
      await failing.close();
      await held.obliterate({ force: true }).catch(() => undefined);
      await held.close();
    }
  });
});
