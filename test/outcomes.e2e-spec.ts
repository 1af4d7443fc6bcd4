/**
 * Outcomes end to end: what an SDK sends besides stored events (client reports, item types the
 * server does not handle), and what ingest refuses for a known project, counted in Redis, folded
 * into PostgreSQL exactly once, and served by GET /api/projects/{id}/outcomes. Real HTTP,
 * PostgreSQL and Redis, and the real @sentry/node 10 SDK.
 */
import { defaultStackParser, makeNodeTransport, NodeClient } from '@sentry/node';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { REDIS, RedisClient } from '../src/redis/redis.module';
import { outcomeKeys, readOutcomeFields } from '../src/outcomes/outcome-fields';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { OutcomesRepository } from '../src/outcomes/outcomes.repository';
import { RetentionService } from '../src/retention/retention.service';
import { startTestApp, TestApp } from './helpers/app';
import { startProxy } from './helpers/tcp-proxy';
import { TEST_REDIS_URL } from './helpers/test-env';
import { storedEvent } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

interface Project {
  id: number;
  client_key: string;
}

interface Total {
  outcome: string;
  category: string;
  reason: string | null;
  quantity: number;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');

/** An envelope of `items`, each `[item header, payload]`; the payload is sent without a length. */
function envelope(items: [object, string][], header: object = {}): string {
  return [
    JSON.stringify(header),
    ...items.flatMap(([item, payload]) => [JSON.stringify(item), payload]),
  ].join('\n');
}

function eventItem(eventId: string): [object, string] {
  return [
    { type: 'event' },
    JSON.stringify({ event_id: hex(eventId), message: `outcomes ${eventId}`, level: 'error' }),
  ];
}

function clientReport(payload: unknown): [object, string] {
  return [{ type: 'client_report' }, typeof payload === 'string' ? payload : JSON.stringify(payload)];
}

async function createProject(t: TestApp): Promise<Project> {
  return (
    await t
      .api()
      .post('/api/projects')
      .send({ name: `outcomes-${randomUUID().slice(0, 6)}` })
      .expect(201)
  ).body as Project;
}

function send(t: TestApp, project: Project, body: string | Buffer) {
  return t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .type('text/plain')
    .send(body);
}

/** The project's totals over the last day, once everything counted is folded in. */
async function foldedTotals(t: TestApp, project: Project): Promise<Total[]> {
  await t.app.get(OutcomeFolder).fold();
  const response = await t.api().get(`/api/projects/${project.id}/outcomes`).expect(200);
  return (response.body.totals as Total[])
    .slice()
    .sort((a, b) =>
      `${a.outcome}:${a.category}:${a.reason}`.localeCompare(`${b.outcome}:${b.category}:${b.reason}`),
    );
}

describe('outcomes', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stores the event of an envelope with a client report and unsupported items, and counts the rest exactly', async () => {
    const project = await createProject(t);
    const eventId = randomUUID();
    const body = envelope(
      [
        eventItem(eventId),
        clientReport({
          timestamp: Date.now() / 1000,
          discarded_events: [
            { reason: 'before_send', category: 'error', quantity: 3 },
            { reason: 'queue_overflow', category: 'transaction', quantity: 2 },
          ],
        }),
        [{ type: 'transaction' }, JSON.stringify({ type: 'transaction', spans: [] })],
        [{ type: 'replay_event' }, '{}'],
        // A check-in without its monitor_slug: refused as Sentry refuses it, the rest kept.
        [{ type: 'check_in' }, JSON.stringify({ check_in_id: hex(randomUUID()), status: 'ok' })],
        [{ type: 'brand_new_thing' }, 'opaque'],
      ],
      { event_id: hex(eventId) },
    );
    const response = await send(t, project, body).expect(200);
    expect(response.body).toEqual({ id: hex(eventId) });
    await storedEvent(t, eventId, 30_000);
    await settleRollups(t.app);

    expect(await foldedTotals(t, project)).toEqual([
      { outcome: 'accepted', category: 'error', reason: null, quantity: 1 },
      { outcome: 'client_discard', category: 'error', reason: 'before_send', quantity: 3 },
      { outcome: 'client_discard', category: 'transaction', reason: 'queue_overflow', quantity: 2 },
      { outcome: 'invalid', category: 'monitor', reason: 'invalid_slug', quantity: 1 },
      { outcome: 'unsupported', category: 'replay', reason: 'replay_event', quantity: 1 },
      { outcome: 'unsupported', category: 'transaction', reason: 'transaction', quantity: 1 },
      { outcome: 'unsupported', category: 'unknown', reason: 'other', quantity: 1 },
    ]);
    // Folding again adds nothing: the counts moved, they were not copied.
    expect(await foldedTotals(t, project)).toHaveLength(7);
    const view = (await t.api().get(`/api/projects/${project.id}/outcomes?period=24h`).expect(200)).body;
    expect(view).toMatchObject({ period: '24h', interval: '1h', accepted: 1, dropped: 9 });
    expect(view.series).toHaveLength(24);
    // Summed over the buckets: an hour may have begun since the envelope was sent.
    const sum = (outcome: string) =>
      view.series.reduce((total: number, bucket: Record<string, number>) => total + bucket[outcome], 0);
    expect(['accepted', 'client_discard', 'unsupported', 'invalid'].map(sum)).toEqual([1, 5, 3, 1]);
  }, 60_000);

  it('keeps the event when a client report is bad, and counts the report as invalid', async () => {
    const project = await createProject(t);
    const eventId = randomUUID();
    const body = envelope([
      clientReport('{"discarded_events": [oops'),
      clientReport({ discarded_events: [{ reason: 'before_send', category: 'error', quantity: -5 }] }),
      clientReport({ discarded_events: [{ reason: 'before_send', category: 'error', quantity: 1e12 }] }),
      clientReport({ discarded_events: [{ reason: 7, category: 'error', quantity: 1 }] }),
      eventItem(eventId),
      clientReport({ discarded_events: [{ reason: 'sample_rate', category: 'error', quantity: 1 }] }),
    ]);
    expect((await send(t, project, body).expect(200)).body).toEqual({ id: hex(eventId) });
    await storedEvent(t, eventId, 30_000);
    const totals = await foldedTotals(t, project);
    expect(totals.filter((total) => total.outcome !== 'accepted')).toEqual([
      { outcome: 'client_discard', category: 'error', reason: 'sample_rate', quantity: 1 },
      { outcome: 'invalid', category: 'internal', reason: 'client_report', quantity: 4 },
    ]);
  }, 60_000);

  it('counts what ingest refuses for a known project, and nothing for an unknown key', async () => {
    const project = await createProject(t);
    await send(t, project, '{not json\n{"type":"event"}\n{}').expect(400);
    await send(t, project, envelope([[{ type: 'event', length: 100 }, '{}']])).expect(400);
    const large = JSON.stringify({ message: 'x'.repeat(1024 * 1024) });
    await send(t, project, envelope([[{ type: 'event', length: Buffer.byteLength(large) }, large]])).expect(
      413,
    );
    await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(randomUUID())}`)
      .type('text/plain')
      .send(envelope([eventItem(randomUUID())]))
      .expect(401);
    expect(await foldedTotals(t, project)).toEqual([
      { outcome: 'invalid', category: 'error', reason: 'invalid_json', quantity: 1 },
      { outcome: 'invalid', category: 'error', reason: 'invalid_length', quantity: 1 },
      { outcome: 'invalid', category: 'error', reason: 'too_large', quantity: 1 },
    ]);
  });

  it('counts rate-limited envelopes as rate_limited', async () => {
    const limited = await startTestApp({
      APP_ROLE: 'api',
      MAX_EVENTS_PER_MINUTE: '1',
      MAX_EVENTS_PER_HOUR: '0',
    });
    try {
      const project = await createProject(limited);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await send(limited, project, envelope([eventItem(randomUUID())]))).status);
      expect(statuses).toEqual([200, 429, 429]);
      expect(await foldedTotals(limited, project)).toEqual([
        { outcome: 'rate_limited', category: 'error', reason: 'rate_limit', quantity: 2 },
      ]);
      const metrics = await limited.http().get('/metrics').expect(200);
      expect(metrics.text).toMatch(
        /^error_tracker_outcomes_total\{outcome="rate_limited",category="error",reason="rate_limit"\} 2$/m,
      );
    } finally {
      await limited.close();
    }
  });

  it('answers as before when Redis does not take the counts', async () => {
    const proxy = await startProxy(Number(new URL(TEST_REDIS_URL).port || 6379));
    const app = await startTestApp({
      APP_ROLE: 'api',
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
    });
    try {
      const project = await createProject(app);
      proxy.freeze();
      const report = clientReport({
        discarded_events: [{ reason: 'before_send', category: 'error', quantity: 1 }],
      });
      const response = await send(app, project, envelope([report, [{ type: 'session' }, '{}']])).expect(200);
      expect(response.body).toEqual({});
      await send(app, project, 'not an envelope').expect(400);
    } finally {
      proxy.thaw();
      await app.close();
      await proxy.cut();
    }
  });

  it('folds a batch once when the fold died between the PostgreSQL commit and the Redis cleanup', async () => {
    const project = await createProject(t);
    await send(
      t,
      project,
      envelope([
        [{ type: 'span' }, '{}'],
        [{ type: 'span' }, '{}'],
      ]),
    ).expect(200);
    const redis = t.app.get<RedisClient>(REDIS);
    const keys = outcomeKeys(t.config.REDIS_PREFIX);
    // What a fold does up to its commit, then nothing: its batch stays in Redis, recorded in PostgreSQL.
    const batchId = randomUUID();
    await redis.rename(keys.live, keys.batch(batchId));
    await redis.sadd(keys.folds, batchId);
    const counts = readOutcomeFields(await redis.hgetall(keys.batch(batchId)));
    expect(await t.app.get(OutcomesRepository).foldBatch(batchId, counts)).toBe(true);

    const folds = await Promise.all([t.app.get(OutcomeFolder).fold(), t.app.get(OutcomeFolder).fold()]);
    expect(folds.reduce((sum, report) => sum + report.alreadyFolded, 0)).toBeGreaterThanOrEqual(1);
    expect(await foldedTotals(t, project)).toEqual([
      { outcome: 'unsupported', category: 'span', reason: 'span', quantity: 2 },
    ]);
    expect(await redis.exists(keys.batch(batchId))).toBe(0);
    expect(await redis.sismember(keys.folds, batchId)).toBe(0);
  });

  it('counts the client report the real @sentry/node 10 SDK sends for events beforeSend dropped', async () => {
    const project = await createProject(t);
    const client = new NodeClient({
      dsn: `http://${hex(project.client_key)}@127.0.0.1:${t.port}/${project.id}`,
      transport: makeNodeTransport,
      stackParser: defaultStackParser,
      integrations: [],
      sendClientReports: true,
      beforeSend: () => null,
    });
    const sent: string[] = [];
    client.on('beforeEnvelope', (sentEnvelope) => sent.push(...sentEnvelope[1].map(([item]) => item.type)));
    client.init();
    client.captureException(new Error('dropped by beforeSend'));
    client.captureException(new Error('dropped by beforeSend too'));
    // NodeClient.flush sends the discards recorded so far as a client report, then waits for it.
    expect(await client.flush(5_000)).toBe(true);
    await client.close(1_000);
    expect(sent).toEqual(['client_report']);
    expect(await foldedTotals(t, project)).toEqual([
      { outcome: 'client_discard', category: 'error', reason: 'before_send', quantity: 2 },
    ]);
  });

  it('answers 400 for an unknown period, and daily buckets for 14d and 90d', async () => {
    const project = await createProject(t);
    const bad = await t.api().get(`/api/projects/${project.id}/outcomes?period=7d`).expect(400);
    expect(bad.body).toEqual({ error: expect.stringContaining('period must be one of 24h, 14d, 90d') });
    for (const [period, buckets] of [
      ['14d', 14],
      ['90d', 90],
    ] as const) {
      const view = (await t.api().get(`/api/projects/${project.id}/outcomes?period=${period}`).expect(200))
        .body;
      expect(view).toMatchObject({ period, interval: '1d', accepted: 0, dropped: 0, totals: [] });
      expect(view.series).toHaveLength(buckets);
    }
    await t.api().get('/api/projects/2000000000/outcomes').expect(404);
    await t.http().get(`/api/projects/${project.id}/outcomes`).expect(401);
  });

  it('deletes outcome rows older than the event retention', async () => {
    const project = await createProject(t);
    const now = new Date();
    const old = new Date(now.getTime() - (t.config.EVENT_RETENTION_DAYS + 1) * 86_400_000);
    await db.query(
      `INSERT INTO outcomes_hourly (project_id, hour, outcome, category, reason, quantity)
       VALUES ($1, date_trunc('hour', $2::timestamptz), 'invalid', 'error', 'too_large', 1),
              ($1, date_trunc('hour', $3::timestamptz), 'invalid', 'error', 'too_large', 1)`,
      [project.id, old, now],
    );
    await t.app.get(RetentionService).run(now);
    const rows: { hour: Date }[] = await db.query('SELECT hour FROM outcomes_hourly WHERE project_id = $1', [
      project.id,
    ]);
    expect(rows.map((row) => row.hour.getTime())).toEqual([
      Math.floor(now.getTime() / 3_600_000) * 3_600_000,
    ]);
  });
});
