/**
 * The core pipeline on a Redis Cluster: three masters the test starts itself on free loopback ports
 * (never the shared Redis), the real application configured with REDIS_CLUSTER=true, driven over
 * HTTP. Ingest, digest, dedupe, rate limits, alerts, readiness and metrics, scheduled work and the
 * failed-jobs commands must all work when every multi-key command has to stay within one slot.
 */
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { AlertJobName } from '../src/issues/transitions/alert-trigger';
import { QueueName } from '../src/common/queues';
import { digestJobId, DigestJobName } from '../src/digest/digest-job';
import { FailedJobs } from '../src/jobs/failed-jobs';
import { MaintenanceJobName } from '../src/retention/maintenance.processor';
import { LimitKeys } from '../src/limits/limit-keys';
import { REDIS, RedisClient } from '../src/redis/redis.module';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { SessionFolder } from '../src/releases/health/session-folder';
import { sessionKeys } from '../src/releases/health/session-keys';
import { freshFixtureEnvelope } from './fixtures/fixtures';
import { startTestApp, TestApp } from './helpers/app';
import { backlogDrained, eventually, openQueue, storedEvent } from './helpers/queues';
import { TestRedisCluster } from './helpers/redis-cluster';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

const hexOf = (uuid: string) => uuid.replace(/-/g, '');

describe('Redis Cluster: the core pipeline on three masters', () => {
  const cluster = new TestRedisCluster();
  let t: TestApp;
  const warnings = jest.spyOn(Logger.prototype, 'warn');
  /** Where BullMQ prints a worker error nobody listens to. */
  const consoleErrors = jest.spyOn(console, 'error');
  let receiver: WebhookReceiver | undefined;
  /** One plain client per node, for what only a node can answer (SCAN, CLUSTER KEYSLOT). */
  let nodes: Redis[] = [];

  beforeAll(async () => {
    await cluster.start(3);
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      REDIS_CLUSTER: 'true',
      REDIS_URL: cluster.url,
      MAX_EVENTS_PER_MINUTE: '5',
      MAX_EVENTS_PER_HOUR: '0',
      ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
      RETENTION_SCHEDULE: '17 * * * *',
    });
    nodes = cluster.ports.map((port) => new Redis({ host: '127.0.0.1', port, lazyConnect: true }));
  }, 60_000);

  afterAll(async () => {
    try {
      await t?.close();
      for (const node of nodes) node.disconnect();
      await receiver?.close();
    } finally {
      await cluster.stop();
      warnings.mockRestore();
      consoleErrors.mockRestore();
    }
  });

  async function createProject(name: string): Promise<{ id: number; client_key: string }> {
    return (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `${name} ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body;
  }

  function send(project: { id: number; client_key: string }, eventId: string) {
    return t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('Content-Type', 'application/x-sentry-envelope')
      .set(
        'X-Sentry-Auth',
        `Sentry sentry_version=7, sentry_key=${hexOf(project.client_key)}, sentry_client=sentry.javascript.node/10.78.0`,
      )
      .send(freshFixtureEnvelope('exception-event', eventId));
  }

  /** Every key of this installation, on whichever master holds it, with its slot. */
  async function keysWithSlots(): Promise<Map<string, number>> {
    const slots = new Map<string, number>();
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${t.config.REDIS_PREFIX}:*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) slots.set(key, Number(await node.cluster('KEYSLOT', key)));
      } while (cursor !== '0');
    }
    return slots;
  }

  let project: { id: number; client_key: string };
  let issueId: number;
  const firstEvent = hexOf(randomUUID());

  it('is ready: every master answers and the queues can be read', async () => {
    // Right after boot the cluster client may still be learning the slots: the queues are read once it has.
    const ready = await eventually(async () => {
      const answer = await t.http().get('/health/ready').expect(200);
      return answer.body.digest_backlog === undefined ? undefined : answer;
    });
    expect(ready.body).toMatchObject({
      status: 'ok',
      database: 'connected',
      redis: 'connected',
      digest_backlog: 0,
    });
  });

  it('ingests an SDK envelope, digests it into an issue and alerts a webhook through the alerts queue', async () => {
    project = await createProject('Cluster');
    const channel = await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: 'cluster hook',
        channel_type: 'webhook',
        config: { url: `${receiver!.url}/hook` },
      })
      .expect(201);
    await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({ name: 'new issues', alert_type: 'new_issue', channel_ids: [channel.body.id] })
      .expect(201);

    const accepted = await send(project, firstEvent);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ id: firstEvent });

    const event = await storedEvent(t, firstEvent);
    expect(event.project_id).toBe(project.id);
    issueId = event.issue_id;
    const issues = (await t.api().get(`/api/projects/${project.id}/issues`).expect(200)).body.data;
    expect(issues).toEqual([
      expect.objectContaining({ id: issueId, type: 'TypeError', event_count: 1, state: 'open' }),
    ]);

    const webhook = await eventually(async () =>
      receiver!.received
        .map(({ body }) => body)
        .find((body) => (body.issue as { id: number }).id === issueId),
    );
    expect(webhook).toMatchObject({
      alert_type: 'new_issue',
      project: expect.objectContaining({ id: project.id }),
    });
  });

  it('stores a resent envelope once', async () => {
    expect((await send(project, firstEvent)).status).toBe(200);
    await backlogDrained(t);
    expect((await t.api().get(`/api/issues/${issueId}`).expect(200)).body.event_count).toBe(1);
    expect((await t.api().get(`/api/issues/${issueId}/events`).expect(200)).body.data).toHaveLength(1);
  });

  it('rate limits a project with 429, Retry-After and one log line per window', async () => {
    const limited = await createProject('Limited');
    // All in one fixed one-minute window: a minute about to end is waited out first.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
    // A window of 5: eleven sends overflow it.
    const statuses: number[] = [];
    let rejected: { status: number; headers: Record<string, string>; body: unknown } | undefined;
    for (let i = 0; i < 11 && !rejected; i++) {
      const response = await send(limited, hexOf(randomUUID()));
      statuses.push(response.status);
      if (response.status === 429) rejected = response;
    }
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(rejected).toBeDefined();
    const retryAfter = Number(rejected!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(rejected!.headers['x-sentry-rate-limits']).toMatch(
      new RegExp(`^${retryAfter}:default;error;[a-z_;]+:project$`),
    );
    expect(rejected!.body).toEqual({ error: expect.stringMatching(/^rate limit exceeded/) });
    expect((await send(limited, hexOf(randomUUID()))).status).toBe(429);
    const logged = warnings.mock.calls.filter(([message]) =>
      String(message).startsWith(`rate limit exceeded for project ${limited.id}:`),
    );
    expect(logged).toHaveLength(1);
    await backlogDrained(t);
  });

  it('reports the digest backlog in /health/ready and /metrics', async () => {
    // The worker's heartbeat, a hash of its own slot (its first beat may precede the cluster's readiness).
    await eventually(
      async () => (await t.http().get('/health/ready').expect(200)).body.workers.length === 1,
      10_000,
    );
    const digest = openQueue(t, QueueName.Digest);
    try {
      // Delayed far beyond the test: counted as backlog, never digested.
      const job = await digest.add(
        DigestJobName.Event,
        { projectId: project.id, eventId: randomUUID(), receivedAt: Date.now(), payload: '{}' },
        { delay: 3_600_000 },
      );
      const ready = await t.http().get('/health/ready').expect(200);
      expect(ready.body).toMatchObject({ digest_backlog: 1, digest_failed: 0 });
      const metrics = await t.http().get('/metrics').expect(200);
      expect(metrics.text).toMatch(/^error_tracker_digest_backlog 1$/m);
      expect(metrics.text).toMatch(/^error_tracker_workers 1$/m);
      await job.remove();
      expect((await t.http().get('/health/ready').expect(200)).body.digest_backlog).toBe(0);
    } finally {
      await digest.close();
    }
  });

  it('counts outcomes and folds them, the fold script within one slot', async () => {
    const own = await createProject('Outcomes');
    const report = JSON.stringify({
      discarded_events: [{ reason: 'before_send', category: 'error', quantity: 3 }],
    });
    await t
      .http()
      .post(`/api/${own.id}/envelope/?sentry_key=${hexOf(own.client_key)}`)
      .send(['{}', '{"type":"client_report"}', report, '{"type":"transaction"}', '{}'].join('\n'))
      .expect(200);
    await t.app.get(OutcomeFolder).fold();
    const view = (await t.api().get(`/api/projects/${own.id}/outcomes`).expect(200)).body;
    expect(view.totals).toEqual([
      { outcome: 'client_discard', category: 'error', reason: 'before_send', quantity: 3 },
      { outcome: 'unsupported', category: 'transaction', reason: 'transaction', quantity: 1 },
    ]);
  });

  it('records sessions, folds them and applies the session quota, each script within one slot', async () => {
    const own = await createProject('Sessions');
    const now = new Date().toISOString();
    const session = (status: string) =>
      JSON.stringify({
        sid: 'c0ffee00c0ffee00c0ffee00c0ffee00',
        init: status === 'ok',
        started: now,
        timestamp: now,
        status,
        did: 'u1',
        attrs: { release: 'cluster@1' },
      });
    for (const status of ['ok', 'crashed']) {
      await t
        .http()
        .post(`/api/${own.id}/envelope/?sentry_key=${hexOf(own.client_key)}`)
        .send(['{}', '{"type":"session"}', session(status)].join('\n'))
        .expect(200);
    }
    await t.app.get(SessionFolder).fold();
    const view = (await t.api().get(`/api/projects/${own.id}/release-health`).expect(200)).body;
    expect(view.totals).toMatchObject({ sessions: 1, crashed_sessions: 1, users: 1, crash_free_users: 0 });

    // The daily session quota, published beside the session keys and read by the same script.
    await t.api().patch(`/api/projects/${own.id}/quotas`).send({ daily_session_quota: 2 }).expect(200);
    const refused = await t
      .http()
      .post(`/api/${own.id}/envelope/?sentry_key=${hexOf(own.client_key)}`)
      .send(['{}', '{"type":"session"}', session('exited')].join('\n'))
      .expect(429);
    expect(refused.headers['x-sentry-rate-limits']).toMatch(/^\d+:session:project:session_quota$/);
    const quotas = (await t.api().get(`/api/projects/${own.id}/quotas`).expect(200)).body;
    expect(quotas).toMatchObject({ daily_session_quota: 2, usage: { sessions_today: 2 } });
  });

  /** The index of the master that serves the key (the others answer MOVED). */
  async function masterOf(key: string): Promise<number> {
    for (const [index, node] of nodes.entries()) {
      try {
        await node.exists(key);
        return index;
      } catch (error) {
        if (!/^MOVED/.test((error as Error).message)) throw error;
      }
    }
    throw new Error(`no master serves ${key}`);
  }

  it("publishes a project's quotas whatever the master of its keys, the session quota's hash on another", async () => {
    const keys = new LimitKeys(t.config.REDIS_PREFIX);
    const sessionQuotas = sessionKeys(t.config.REDIS_PREFIX).dailyQuotas;
    const sessionsMaster = await masterOf(sessionQuotas);
    // A project whose limits hash another master serves: ids are spread over the slots by their hash tag.
    let elsewhere: { id: number } | undefined;
    for (let tries = 0; tries < 20 && !elsewhere; tries++) {
      const created = await createProject('Quota slots');
      if ((await masterOf(keys.limits(created.id))) !== sessionsMaster) elsewhere = created;
    }
    expect(elsewhere).toBeDefined();
    const { id } = elsewhere!;
    await t.api().patch(`/api/projects/${id}/quotas`).send({ daily_quota: 5, daily_session_quota: 3 }).expect(200);
    const redis = t.app.get<RedisClient>(REDIS);
    expect(await redis.hgetall(keys.limits(id))).toEqual({ d: '5', mo: '-1', sp: expect.any(String) });
    expect(await redis.hget(sessionQuotas, String(id))).toBe('3');
  });

  it('registers the scheduled work once for the installation', async () => {
    const alerts = openQueue(t, QueueName.Alerts);
    const maintenance = openQueue(t, QueueName.Maintenance);
    try {
      const names = await eventually(async () => {
        const found = [...(await alerts.getJobSchedulers()), ...(await maintenance.getJobSchedulers())];
        return found.length >= 7 && found.map((schedule) => schedule.name).sort();
      });
      expect(names).toEqual(
        [
          AlertJobName.SweepOutbox,
          AlertJobName.EvaluateReleaseHealth,
          AlertJobName.CheckSpikes,
          MaintenanceJobName.Retention,
          MaintenanceJobName.EndSnoozes,
          MaintenanceJobName.FoldOutcomes,
          MaintenanceJobName.FoldSessions,
        ].sort(),
      );
    } finally {
      await alerts.close();
      await maintenance.close();
    }
  });

  it('lists, retries and purges failed jobs (jobs:failed, jobs:retry, jobs:purge)', async () => {
    const digest = openQueue(t, QueueName.Digest);
    const jobs = new FailedJobs(t.config);
    try {
      const eventId = randomUUID();
      const jobId = digestJobId(project.id, eventId);
      await digest.add(
        DigestJobName.Event,
        { projectId: project.id, eventId, receivedAt: Date.now(), payload: '{"not json' },
        { jobId, attempts: 3 },
      );
      const [failed] = await eventually(async () => {
        const listed = await jobs.list(QueueName.Digest, 10);
        return listed.length > 0 && listed;
      });
      expect(failed).toMatchObject({
        queue: QueueName.Digest,
        id: jobId,
        subject: { projectId: project.id, eventId },
      });
      expect((await jobs.counts())[QueueName.Digest]).toBe(1);

      expect(await jobs.retry(QueueName.Digest)).toBe(1);
      // Still not JSON: back in the failed set at once.
      await eventually(async () => (await digest.getJobState(jobId)) === 'failed');
      expect(await jobs.purge(QueueName.Digest)).toBe(1);
      expect(await jobs.counts()).toEqual({
        [QueueName.Digest]: 0,
        [QueueName.Alerts]: 0,
        [QueueName.Maintenance]: 0,
        [QueueName.Monitors]: 0,
        [QueueName.Uptime]: 0,
      });
    } finally {
      await jobs.close();
      await digest.close();
    }
  });

  it("keeps each queue's keys in one slot, the queues in different slots, and a project's rate counters together", async () => {
    const slots = await keysWithSlots();
    const byQueue = new Map<QueueName, Set<number>>();
    for (const [key, slot] of slots) {
      const queue = Object.values(QueueName).find((name) => key.includes(`:${name}:`));
      if (queue) byQueue.set(queue, (byQueue.get(queue) ?? new Set()).add(slot));
    }
    // Jobs, events streams, schedulers …: several keys per queue, each queue in a slot of its own.
    for (const queue of Object.values(QueueName)) {
      const keys = [...slots.keys()].filter((key) => key.includes(`:${queue}:`));
      expect({ queue, keys: keys.length > 1 }).toEqual({ queue, keys: true });
      expect({ queue, slots: byQueue.get(queue)!.size }).toEqual({ queue, slots: 1 });
    }
    expect(new Set([...byQueue.values()].map((set) => [...set][0])).size).toBe(
      Object.values(QueueName).length,
    );

    const counters = [...slots].filter(([key]) => key.includes(':ratelimit:'));
    expect(counters.length).toBeGreaterThan(0);
    for (const projectId of new Set(counters.map(([key]) => /\{(\d+)\}/.exec(key)?.[1]))) {
      const ofProject = counters.filter(([key]) => key.includes(`{${projectId}}`));
      expect(new Set(ofProject.map(([, slot]) => slot)).size).toBe(1);
    }
  });

  it("adds the event counts an instance kept in memory to each project's counters, whatever their slots", async () => {
    // Without rate limits, projects far below their quotas are counted in memory and flushed in one go.
    const api = await startTestApp({
      APP_ROLE: 'api',
      REDIS_CLUSTER: 'true',
      REDIS_URL: cluster.url,
      REDIS_PREFIX: t.config.REDIS_PREFIX,
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
    });
    const projects = await Promise.all(
      ['Counted a', 'Counted b', 'Counted c', 'Counted d'].map(createProject),
    );
    const keys = new LimitKeys(t.config.REDIS_PREFIX);
    const slotsOf = await Promise.all(
      projects.map(async (counted) => Number(await nodes[0].cluster('KEYSLOT', keys.limits(counted.id)))),
    );
    try {
      for (let round = 0; round < 6; round++) {
        await Promise.all(
          projects.map((counted) =>
            api
              .http()
              .post(`/api/${counted.id}/envelope/`)
              .set('Content-Type', 'application/x-sentry-envelope')
              .set('X-Sentry-Auth', `Sentry sentry_version=7, sentry_key=${hexOf(counted.client_key)}`)
              .send(freshFixtureEnvelope('exception-event', hexOf(randomUUID())))
              .expect(200),
          ),
        );
      }
    } finally {
      await api.close();
    }
    expect(new Set(slotsOf).size).toBeGreaterThan(1);
    const redis = t.app.get<RedisClient>(REDIS);
    const now = Date.now();
    for (const counted of projects) {
      expect(Number(await redis.get(keys.acceptedToday(counted.id, now)))).toBe(6);
    }
  });

  it('names a REDIS_CLUSTER that does not match the server in the log, and is not ready', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    const logged = (text: string) => async () =>
      errors.mock.calls.some(([message]) => String(message).startsWith(text));
    try {
      const onNode = await startTestApp({
        APP_ROLE: 'api',
        REDIS_URL: `redis://127.0.0.1:${cluster.ports[0]}`,
      });
      try {
        await eventually(logged('REDIS_URL is a node of a Redis Cluster: set REDIS_CLUSTER=true'), 5_000);
      } finally {
        await onNode.close();
      }
      const onSingle = await startTestApp({ APP_ROLE: 'api', REDIS_CLUSTER: 'true' });
      try {
        await eventually(
          logged('REDIS_CLUSTER is true but REDIS_URL is a Redis without cluster mode'),
          5_000,
        );
        await onSingle.http().get('/health/ready').expect(503);
      } finally {
        await onSingle.close();
      }
    } finally {
      errors.mockRestore();
    }
  });

  it('answers readiness 503 within seconds when a master dies, and recovers when it is back', async () => {
    // A project of its own: at most five sends below, within its rate limit whatever they meet.
    const recovering = await createProject('Recovering');
    const port = cluster.ports[2];
    await cluster.kill(port);
    const killedAt = Date.now();
    // The 503 itself is checked: while the cluster notices the dead master, a second check a moment
    // later may still reach a live node and answer 200.
    const unready = await eventually(async () => {
      const response = await t.http().get('/health/ready');
      return response.status === 503 ? response : undefined;
    }, 15_000);
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect(unready.body).toMatchObject({ redis: 'disconnected' });
    // Ingest answers (its slots may still be served) without waiting for the dead node.
    const sentAt = Date.now();
    expect([200, 503]).toContain((await send(recovering, hexOf(randomUUID()))).status);
    expect(Date.now() - sentAt).toBeLessThan(6_000);

    await cluster.restart(port);
    await eventually(async () => (await t.http().get('/health/ready')).status === 200, 20_000);
    const eventId = hexOf(randomUUID());
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4 && statuses.at(-1) !== 200; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
      statuses.push((await send(recovering, eventId)).status);
    }
    expect(statuses.at(-1)).toBe(200);
    await storedEvent(t, eventId, 20_000);
    // The workers' errors meanwhile (CLUSTERDOWN, redirections) went to the log, once per kind.
    expect(consoleErrors.mock.calls.filter(([first]) => String(first).includes('Unhandled error'))).toEqual(
      [],
    );
    expect(
      warnings.mock.calls.some(([message]) => /^(alerts|maintenance|digest) worker: /.test(String(message))),
    ).toBe(true);
  });
});
