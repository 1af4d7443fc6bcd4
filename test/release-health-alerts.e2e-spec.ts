/**
 * Release health alerts end to end: sessions sent through the real HTTP ingest, folded by the real
 * fold, judged by the evaluation the alerts queue schedules, delivered by the real worker to a
 * webhook receiver on loopback, with history and retries.
 */
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { QueueName } from '../src/common/queues';
import { ReleaseHealthAlertsService } from '../src/alerts/release-health-alerts.service';
import { SessionFolder } from '../src/releases/health/session-folder';
import { startTestApp, TestApp } from './helpers/app';
import { newSid, sessionEnvelope, sessionPayload, Status } from './helpers/sessions';

interface Project {
  id: number;
  client_key: string;
}

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

interface HistoryRow {
  id: number;
  alert_type: string;
  status: string;
  attempts?: number;
  error: string | null;
  release: string | null;
  issue_id: number | null;
  rule_id: number;
}

/** Records every request; a path can be told to fail its next requests with a 500. */
class Receiver {
  readonly requests: Received[] = [];
  readonly failures = new Map<string, number>();
  url = '';
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // kept as {}: the assertions on it then fail
      }
      this.requests.push({ path, headers: req.headers, body });
      const failing = this.failures.get(path) ?? 0;
      if (failing > 0) this.failures.set(path, failing - 1);
      res.statusCode = failing > 0 ? 500 : 200;
      res.end(failing > 0 ? 'receiver is broken today' : 'ok');
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  to(path: string): Received[] {
    return this.requests.filter((request) => request.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const hex = (uuid: string) => uuid.replace(/-/g, '');
const PUBLIC_URL = 'https://errors.example.com';

describe('release health alerts', () => {
  let t: TestApp;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp({
      ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
      ALERTS_RETRY_BASE_DELAY_MS: '50',
      PUBLIC_URL,
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver.close();
  });

  async function createProject(): Promise<Project> {
    return (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Shop ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
  }

  async function createWebhook(path: string): Promise<number> {
    const body = (
      await t
        .api()
        .post('/api/alert-channels')
        .send({ name: `hook ${path}`, channel_type: 'webhook', config: { url: `${receiver.url}${path}` } })
        .expect(201)
    ).body as { id: number };
    return body.id;
  }

  async function createRule(
    project: Project,
    channelId: number,
    conditions: Record<string, unknown>,
    cooldownMinutes = 0,
  ): Promise<number> {
    const body = (
      await t
        .api()
        .post(`/api/projects/${project.id}/alert-rules`)
        .send({
          name: 'Release health',
          alert_type: 'release_health',
          channel_ids: [channelId],
          conditions,
          cooldown_minutes: cooldownMinutes,
        })
        .expect(201)
    ).body as { id: number };
    return body.id;
  }

  /** `count` sessions of the release, each sent as SDKs do (an init update that ends it at once). */
  async function sendSessions(
    project: Project,
    release: string,
    status: Status,
    count: number,
    options: { environment?: string; did?: (index: number) => string } = {},
  ): Promise<void> {
    const started = Date.now() - 5_000;
    const attrs = { release, environment: options.environment ?? 'production' };
    const items = Array.from({ length: count }, (_, index) => ({
      type: 'session' as const,
      payload: sessionPayload({
        sid: newSid(),
        did: options.did?.(index),
        init: true,
        started,
        timestamp: started + 1_000,
        status,
        attrs,
      }),
    }));
    await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .type('text/plain')
      .send(sessionEnvelope(items))
      .expect(200);
  }

  /** What the scheduled job does once a minute: fold the sessions, then judge the rules. */
  async function evaluate(): Promise<void> {
    await t.app.get(SessionFolder).fold();
    await t.app.get(ReleaseHealthAlertsService).evaluate();
  }

  async function history(project: Project): Promise<HistoryRow[]> {
    return (await t.api().get(`/api/projects/${project.id}/alert-history`).expect(200)).body as HistoryRow[];
  }

  /** Deliveries go through the queue: waits until none of the project's rows is pending. */
  async function settled(project: Project): Promise<HistoryRow[]> {
    return waitFor(async () => {
      const rows = await history(project);
      return rows.every((row) => row.status !== 'pending') && rows;
    }, 'deliveries to settle');
  }

  it('is evaluated once a minute for the installation, by a job scheduler of the alerts queue', async () => {
    const queue = t.app.get<Queue>(getQueueToken(QueueName.Alerts));
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.find((scheduler) => scheduler.key === 'evaluate-release-health')).toMatchObject({
      every: 60_000,
    });
  });

  it('checks each condition of a release_health rule, and keeps the issue rules as they were', async () => {
    const project = await createProject();
    const channel = await createWebhook('/unused');
    const valid = { metric: 'crash_free_sessions', threshold: 99, window_hours: 24, min_sessions: 10 };
    const post = (alertType: string, conditions: unknown) =>
      t
        .api()
        .post(`/api/projects/${project.id}/alert-rules`)
        .send({ name: 'r', alert_type: alertType, channel_ids: [channel], conditions });
    const cases: Array<[unknown, string]> = [
      [
        { ...valid, metric: 'adoption' },
        'conditions.metric must be one of crash_free_sessions, crash_free_users',
      ],
      [
        { ...valid, threshold: 0 },
        'conditions.threshold must be a percentage greater than 0 and at most 100',
      ],
      [
        { ...valid, threshold: 101 },
        'conditions.threshold must be a percentage greater than 0 and at most 100',
      ],
      [
        { ...valid, window_hours: 169 },
        'conditions.window_hours must be a whole number of hours from 1 to 168',
      ],
      [{ ...valid, min_sessions: 0 }, 'conditions.min_sessions must be a whole number from 1 to 1000000000'],
      [
        { ...valid, environments: [''] },
        'conditions.environments must be a list of at most 100 non-empty strings',
      ],
      [{}, 'conditions.metric must be one of crash_free_sessions, crash_free_users'],
    ];
    for (const [conditions, error] of cases) {
      expect((await post('release_health', conditions).expect(400)).body).toEqual({ error });
    }
    const created = (await post('release_health', valid).expect(201)).body as {
      id: number;
      conditions: unknown;
    };
    expect(created.conditions).toEqual(valid);
    // An issue rule does not take a release rule's conditions, and a release rule's update is checked as one.
    expect((await post('new_issue', valid).expect(400)).body.error).toMatch(
      /conditions\.metric is not supported/,
    );
    await post('new_issue', { min_level: 'error' }).expect(201);
    const patch = await t
      .api()
      .patch(`/api/projects/${project.id}/alert-rules/${created.id}`)
      .send({ conditions: { ...valid, window_hours: 0 } })
      .expect(400);
    expect(patch.body).toEqual({
      error: 'conditions.window_hours must be a whole number of hours from 1 to 168',
    });
  });

  it('alerts once per breach, not while the release stays below, again after it recovered', async () => {
    const project = await createProject();
    const channel = await createWebhook('/breach');
    const ruleId = await createRule(project, channel, {
      metric: 'crash_free_sessions',
      threshold: 90,
      window_hours: 2,
      min_sessions: 10,
    });
    // 8 of 10 crash-free: 80%, below 90%. A release with 4 sessions, all crashed, is under the minimum.
    await sendSessions(project, 'shop@1.0.0', 'exited', 8);
    await sendSessions(project, 'shop@1.0.0', 'crashed', 2);
    await sendSessions(project, 'tiny@1.0.0', 'crashed', 4);
    // Two evaluations at once (two workers, say) fire the breach once.
    await t.app.get(SessionFolder).fold();
    const service = t.app.get(ReleaseHealthAlertsService);
    await Promise.all([service.evaluate(), service.evaluate()]);
    await waitFor(() => receiver.to('/breach').length >= 1, 'the first alert');
    let rows = await settled(project);
    expect(rows).toHaveLength(1);
    const [alert] = receiver.to('/breach');
    expect(alert.headers['x-alert-type']).toBe('release_health');
    const url = `${PUBLIC_URL}/projects/${project.id}/releases/shop%401.0.0`;
    expect(alert.body).toMatchObject({
      alert_type: 'release_health',
      test: false,
      project: { id: project.id },
      release: {
        version: 'shop@1.0.0',
        url,
        metric: 'crash_free_sessions',
        value: 80,
        threshold: 90,
        window_hours: 2,
        min_sessions: 10,
        sessions: 10,
        environments: null,
      },
      url,
    });
    expect(rows[0]).toMatchObject({
      alert_type: 'release_health',
      status: 'sent',
      release: 'shop@1.0.0',
      issue_id: null,
      rule_id: ruleId,
    });

    // Still below, and worse, at the next minutes: nothing new.
    await sendSessions(project, 'shop@1.0.0', 'crashed', 5);
    await evaluate();
    await evaluate();
    // Recovered: 7 crashed of 100 is 93%.
    await sendSessions(project, 'shop@1.0.0', 'exited', 85);
    await evaluate();
    expect(receiver.to('/breach')).toHaveLength(1);
    // A new breach: 27 crashed of 120, 77.5%.
    await sendSessions(project, 'shop@1.0.0', 'crashed', 20);
    await evaluate();
    await waitFor(() => receiver.to('/breach').length >= 2, 'the second alert');
    rows = await settled(project);
    expect(rows.map((row) => [row.release, row.status])).toEqual([
      ['shop@1.0.0', 'sent'],
      ['shop@1.0.0', 'sent'],
    ]);
    expect(receiver.to('/breach')[1].body.release).toMatchObject({ value: 77.5, sessions: 120 });
    expect(receiver.to('/breach')[1].headers['x-idempotency-key']).not.toBe(
      alert.headers['x-idempotency-key'],
    );
    // The release under the minimum never alerted.
    expect(
      receiver.to('/breach').map((request) => (request.body.release as { version: string }).version),
    ).toEqual(['shop@1.0.0', 'shop@1.0.0']);
  });

  it('two worker processes evaluating the same breach at once alert once', async () => {
    const worker = await startTestApp({
      APP_ROLE: 'worker',
      REDIS_PREFIX: t.config.REDIS_PREFIX,
      ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
      ALERTS_RETRY_BASE_DELAY_MS: '50',
      PUBLIC_URL,
    });
    try {
      const project = await createProject();
      const channel = await createWebhook('/two-workers');
      await createRule(project, channel, {
        metric: 'crash_free_sessions',
        threshold: 90,
        window_hours: 2,
        min_sessions: 5,
      });
      await sendSessions(project, 'pair@1', 'crashed', 6);
      await t.app.get(SessionFolder).fold();
      for (let round = 0; round < 3; round++) {
        await Promise.all([
          t.app.get(ReleaseHealthAlertsService).evaluate(),
          worker.app.get(ReleaseHealthAlertsService).evaluate(),
        ]);
      }
      await waitFor(() => receiver.to('/two-workers').length >= 1, 'the alert');
      expect(await settled(project)).toHaveLength(1);
      expect(receiver.to('/two-workers')).toHaveLength(1);
    } finally {
      await worker.close();
    }
  });

  it('a cooldown skips a new breach of the release soon after its last alert', async () => {
    const project = await createProject();
    const channel = await createWebhook('/cooldown');
    const conditions = { metric: 'crash_free_sessions', threshold: 90, window_hours: 2, min_sessions: 5 };
    await createRule(project, channel, conditions, 60);
    await sendSessions(project, 'app@2', 'crashed', 5);
    await evaluate();
    await sendSessions(project, 'app@2', 'exited', 100);
    await evaluate();
    await sendSessions(project, 'app@2', 'crashed', 100);
    await evaluate();
    const rows = await settled(project);
    expect(rows.map((row) => row.status).sort()).toEqual(['sent', 'skipped']);
    expect(rows.find((row) => row.status === 'skipped')!.error).toMatch(/^cooldown: rule "Release health"/);
    expect(receiver.to('/cooldown')).toHaveLength(1);
  });

  it('counts only the sessions of the rule’s environments', async () => {
    const project = await createProject();
    const channel = await createWebhook('/environments');
    await createRule(project, channel, {
      metric: 'crash_free_sessions',
      threshold: 90,
      window_hours: 2,
      min_sessions: 5,
      environments: ['production'],
    });
    await sendSessions(project, 'web@3', 'crashed', 10, { environment: 'staging' });
    await sendSessions(project, 'web@3', 'exited', 10, { environment: 'production' });
    await evaluate();
    expect(await history(project)).toEqual([]);
    await sendSessions(project, 'web@3', 'crashed', 10, { environment: 'production' });
    await evaluate();
    await waitFor(() => receiver.to('/environments').length >= 1, 'the production alert');
    expect(receiver.to('/environments')[0].body.release).toMatchObject({
      value: 50,
      sessions: 20,
      environments: ['production'],
    });
  });

  it('judges crash-free users by users', async () => {
    const project = await createProject();
    const usersHook = await createWebhook('/users');
    const sessionsHook = await createWebhook('/sessions');
    const base = { threshold: 95, window_hours: 2, min_sessions: 5 };
    await createRule(project, usersHook, { ...base, metric: 'crash_free_users' });
    await createRule(project, sessionsHook, { ...base, metric: 'crash_free_sessions' });
    // 20 healthy sessions of 10 users, 1 crashed session of an 11th: sessions 95.2%, users 90.9%.
    await sendSessions(project, 'mobile@4', 'exited', 20, { did: (index) => `user-${index % 10}` });
    await sendSessions(project, 'mobile@4', 'crashed', 1, { did: () => 'unlucky' });
    await evaluate();
    await waitFor(() => receiver.to('/users').length >= 1, 'the users alert');
    await settled(project);
    expect(receiver.to('/sessions')).toEqual([]);
    expect(receiver.to('/users')[0].body.release).toMatchObject({
      metric: 'crash_free_users',
      value: (10 / 11) * 100,
      users: 11,
      sessions: 21,
    });
  });

  it('retries a receiver that fails, under the same key, and records the attempts in the history', async () => {
    const project = await createProject();
    const channel = await createWebhook('/flaky');
    receiver.failures.set('/flaky', 2);
    await createRule(project, channel, {
      metric: 'crash_free_sessions',
      threshold: 99,
      window_hours: 2,
      min_sessions: 3,
    });
    await sendSessions(project, 'api@5', 'crashed', 3);
    await evaluate();
    const [row] = await waitFor(async () => {
      const rows = await history(project);
      return rows.length === 1 && rows[0].status === 'sent' && rows;
    }, 'the delivery after two failures');
    const requests = receiver.to('/flaky');
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.headers['x-idempotency-key'])).size).toBe(1);
    expect(row).toMatchObject({ release: 'api@5', status: 'sent', error: null });
    const entry = (await t.api().get(`/api/projects/${project.id}/alert-history`).expect(200)).body[0];
    expect(entry.sent_at).not.toBeNull();
  });
});
