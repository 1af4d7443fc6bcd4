/**
 * Release health end to end: session updates and aggregates sent through the real HTTP ingest,
 * applied in Redis, folded into PostgreSQL by the real fold, and read back through the API; every
 * figure compared with counts computed here from what was sent.
 */
import { randomUUID } from 'node:crypto';
import { SessionFolder } from '../src/releases/health/session-folder';
import { DataSource } from 'typeorm';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { RetentionService } from '../src/retention/retention.service';
import { startTestApp, TestApp } from './helpers/app';
import {
  aggregatePayload,
  CountedSession,
  expectedFigures,
  Figures,
  newSid,
  rankOf,
  sessionEnvelope,
  sessionPayload,
  Status,
  UpdateSpec,
} from './helpers/sessions';

interface Project {
  id: number;
  client_key: string;
}

const HOUR = 3_600_000;
const hex = (uuid: string) => uuid.replace(/-/g, '');
const hourOf = (ms: number) => Math.floor(ms / HOUR) * HOUR;

async function createProject(t: TestApp): Promise<Project> {
  return (
    await t
      .api()
      .post('/api/projects')
      .send({ name: `health-${randomUUID().slice(0, 6)}` })
      .expect(201)
  ).body as Project;
}

function send(t: TestApp, project: Project, body: string) {
  return t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .type('text/plain')
    .send(body);
}

function sendUpdates(t: TestApp, project: Project, updates: UpdateSpec[], header?: Record<string, unknown>) {
  return send(
    t,
    project,
    sessionEnvelope(
      updates.map((u) => ({ type: 'session', payload: sessionPayload(u) })),
      header,
    ),
  );
}

async function fold(t: TestApp): Promise<void> {
  await t.app.get(SessionFolder).fold();
}

function pick(figures: Record<string, unknown>): Omit<Figures, 'abnormal_sessions'> {
  const { sessions, users, errored_sessions, crashed_sessions, crash_free_sessions, crash_free_users } =
    figures as unknown as Figures;
  return { sessions, users, errored_sessions, crashed_sessions, crash_free_sessions, crash_free_users };
}

function withoutAbnormal(figures: Figures): Omit<Figures, 'abnormal_sessions'> {
  const { abnormal_sessions: _, ...rest } = figures;
  return rest;
}

async function outcomeTotals(t: TestApp, project: Project) {
  await t.app.get(OutcomeFolder).fold();
  const body = (await t.api().get(`/api/projects/${project.id}/outcomes`).expect(200)).body as {
    totals: { outcome: string; category: string; reason: string; quantity: number }[];
  };
  return body.totals
    .filter((row) => row.category === 'session')
    .map(({ outcome, reason, quantity }) => `${outcome}:${reason}:${quantity}`)
    .sort();
}

describe('release health', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ MAX_EVENTS_PER_MINUTE: '0', MAX_EVENTS_PER_HOUR: '0' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts a session once, as the worst it reached, whatever the updates and their resends', async () => {
    const project = await createProject(t);
    const now = Date.now();
    // Within the hour of `now`, so that every session of the test counts in one hourly bucket.
    const started = Math.max(hourOf(now), now - 60_000);
    const attrs = { release: 'shop@1.0.0', environment: 'production' };
    const a = newSid();
    const b = newSid();
    const c = newSid();
    const base = { started, attrs };
    // a: init ok, then an error, then a crash; the crash sent twice, and a late copy of the init.
    const aInit: UpdateSpec = { ...base, sid: a, did: 'alice', init: true, timestamp: started, status: 'ok' };
    const aError: UpdateSpec = {
      ...base,
      sid: a,
      did: 'alice',
      timestamp: started + 1_000,
      status: 'ok',
      errors: 1,
    };
    const aCrash: UpdateSpec = {
      ...base,
      sid: a,
      did: 'alice',
      timestamp: started + 2_000,
      status: 'crashed',
      errors: 2,
    };
    await sendUpdates(t, project, [aInit]).expect(200);
    await sendUpdates(t, project, [aError]).expect(200);
    await sendUpdates(t, project, [aCrash]).expect(200);
    await sendUpdates(t, project, [aCrash]).expect(200);
    await sendUpdates(t, project, [aInit]).expect(200);
    // b: init ok, exits cleanly; the exit resent in the same envelope.
    const bExit: UpdateSpec = { ...base, sid: b, did: 'bob', timestamp: started + 5_000, status: 'exited' };
    await sendUpdates(t, project, [
      { ...base, sid: b, did: 'bob', init: true, timestamp: started, status: 'ok' },
      bExit,
      bExit,
    ]).expect(200);
    // An update after the end changes nothing.
    await sendUpdates(t, project, [{ ...bExit, timestamp: started + 9_000, status: 'crashed' }]).expect(200);
    // c: one update that starts and ends it abnormally, and one with seq (its order), sent late.
    await sendUpdates(t, project, [
      { ...base, sid: c, did: 'bob', init: true, timestamp: started, status: 'ok', seq: 1 },
      { ...base, sid: c, did: 'bob', timestamp: started + 3_000, status: 'abnormal', seq: 3 },
      { ...base, sid: c, did: 'bob', timestamp: started + 2_000, status: 'crashed', seq: 2 },
    ]).expect(200);
    // Aggregates: 5 exited, 2 errored, 1 unhandled, 1 crashed.
    const aggregates = sessionEnvelope(
      [
        {
          type: 'sessions',
          payload: aggregatePayload(attrs, [
            { started: hourOf(now), exited: 5, errored: 2, unhandled: 1, crashed: 1 },
          ]),
        },
      ],
      { sent_at: new Date(now).toISOString() },
    );
    await send(t, project, aggregates).expect(200);
    await fold(t);

    const expected: Omit<Figures, 'abnormal_sessions'> = {
      sessions: 3 + 9,
      users: 2,
      errored_sessions: 3,
      crashed_sessions: 2,
      crash_free_sessions: (10 / 12) * 100,
      crash_free_users: 50,
    };
    const overview = (await t.api().get(`/api/projects/${project.id}/release-health`).expect(200)).body;
    expect(overview.environments).toEqual(['production']);
    expect(pick(overview.totals)).toEqual(expected);
    expect(overview.totals.adoption).toEqual({ sessions: null, users: null });
    expect(overview.releases).toHaveLength(1);
    expect(pick(overview.releases[0])).toEqual(expected);
    expect(overview.releases[0].adoption).toEqual({ sessions: 100, users: 100 });
    expect(overview.releases[0].sparkline.reduce((x: number, y: number) => x + y, 0)).toBe(12);

    const health = (
      await t
        .api()
        .get(`/api/projects/${project.id}/releases/${encodeURIComponent('shop@1.0.0')}/health`)
        .expect(200)
    ).body;
    expect(health).toMatchObject({
      version: 'shop@1.0.0',
      period: '24h',
      environment: null,
      interval: 'hour',
    });
    expect(pick(health.totals)).toEqual(expected);
    expect(health.series).toHaveLength(24);
    const current = health.series.find(
      (bucket: { time: string }) => Date.parse(bucket.time) === hourOf(started),
    );
    expect(current).toMatchObject({
      sessions: 12,
      errored_sessions: 3,
      crashed_sessions: 2,
      abnormal_sessions: 1,
    });

    const list = (await t.api().get(`/api/projects/${project.id}/releases`).expect(200)).body;
    expect(pick(list.data[0])).toEqual(expected);
    expect(list.data[0]).toMatchObject({ version: 'shop@1.0.0', event_count: 0 });
    const one = (
      await t.api().get(`/api/projects/${project.id}/releases/shop%401.0.0?period=14d`).expect(200)
    ).body;
    expect(pick(one)).toEqual(expected);
    expect(one.deploys).toEqual([]);
  });

  it('skips bad session items with a counted outcome, keeping the rest of the envelope', async () => {
    const project = await createProject(t);
    const now = Date.now();
    const attrs = { release: 'shop@2.0.0' };
    const good = (status: Status = 'ok'): UpdateSpec => ({
      sid: newSid(),
      init: true,
      started: now - 1000,
      timestamp: now,
      status,
      attrs,
    });
    const raw = (payload: Record<string, unknown>) => ({ type: 'session' as const, payload });
    const response = await send(
      t,
      project,
      sessionEnvelope([
        raw(sessionPayload(good())),
        raw({ ...sessionPayload(good()), attrs: {} }),
        raw({ ...sessionPayload(good()), attrs: { release: 'a/b' } }),
        raw({ ...sessionPayload(good()), status: 'exploded' }),
        raw({ ...sessionPayload(good()), timestamp: new Date(now + 3_600_000).toISOString() }),
        raw({ ...sessionPayload(good()), started: new Date(now - 6 * 86_400_000).toISOString() }),
        raw({ ...sessionPayload(good()), started: '2019-01-01T00:00:00Z' }),
        raw({ ...sessionPayload(good()), errors: -1 }),
        { type: 'session', payload: 'not json' },
        {
          type: 'sessions',
          payload: aggregatePayload(attrs, [
            { started: now, exited: 2 },
            { started: now, exited: -3 },
            { started: now, crashed: 1e12 },
            { started: now, errored: 1.5 },
            { started: now - 10 * 86_400_000, exited: 4 },
          ]),
        },
        { type: 'sessions', payload: aggregatePayload({}, [{ started: now, exited: 7 }]) },
      ]),
    ).expect(200);
    expect(response.body).toEqual({});
    await fold(t);
    const overview = (await t.api().get(`/api/projects/${project.id}/release-health`).expect(200)).body;
    expect(overview.totals.sessions).toBe(3);
    expect(await outcomeTotals(t, project)).toEqual(
      [
        'invalid:invalid_release:3',
        'invalid:invalid_status:1',
        'invalid:timestamp:4',
        'invalid:invalid_session:4',
        'invalid:invalid_json:1',
      ].sort(),
    );
  });

  it('answers 400 for an unknown period or environment, 404 for an unknown release', async () => {
    const project = await createProject(t);
    await sendUpdates(t, project, [
      {
        sid: newSid(),
        init: true,
        started: Date.now(),
        timestamp: Date.now(),
        status: 'ok',
        attrs: { release: 'r1', environment: 'staging' },
      },
    ]).expect(200);
    await fold(t);
    const base = `/api/projects/${project.id}`;
    for (const path of [
      `${base}/release-health?period=7d`,
      `${base}/release-health?environment=nowhere`,
      `${base}/releases?period=1y`,
      `${base}/releases?environment=nowhere`,
      `${base}/releases/r1?environment=nowhere`,
      `${base}/releases/r1/health?period=1h`,
    ]) {
      const response = await t.api().get(path).expect(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect(
      (await t.api().get(`${base}/releases/r1/health?environment=staging`).expect(200)).body.totals.sessions,
    ).toBe(1);
    expect((await t.api().get(`${base}/release-health?period=90d`).expect(200)).body.environments).toEqual([
      'staging',
    ]);
    const missing = await t.api().get(`${base}/releases/nope/health`).expect(404);
    expect(missing.body.error).toMatch(/not found/);
  });

  it('matches counts computed from a random mix of sessions, users, environments and resends', async () => {
    const project = await createProject(t);
    const now = Date.now();
    const releases = ['web@1', 'web@2', 'web@3'];
    const environments = ['production', 'staging'];
    const dids = Array.from({ length: 25 }, (_, i) => `user-${i}`);
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const choose = <T>(list: T[]) => list[Math.floor(random() * list.length)];
    const counted: CountedSession[] = [];
    const sessions: UpdateSpec[][] = [];
    for (let i = 0; i < 150; i++) {
      const started = now - Math.floor(random() * 22 * HOUR);
      const attrs = { release: choose(releases), environment: choose(environments) };
      const did = random() < 0.8 ? choose(dids) : undefined;
      const sid = newSid();
      const path: Status[] = ['ok'];
      const ending = choose<Status | undefined>([
        undefined,
        'exited',
        'exited',
        'errored',
        'crashed',
        'abnormal',
        'unhandled',
      ]);
      const errors = random() < 0.3 ? 1 : 0;
      if (errors) path.push('ok');
      if (ending) path.push(ending);
      const updates = path.map((status, step) => ({
        sid,
        did,
        init: step === 0,
        started,
        timestamp: started + step * 1000,
        status,
        errors: step === 0 ? 0 : errors,
        attrs,
      }));
      // Resends: any update may go twice.
      sessions.push(updates.flatMap((update) => (random() < 0.25 ? [update, update] : [update])));
      const last = updates[updates.length - 1];
      counted.push({
        ...attrs,
        hourStart: hourOf(started),
        did,
        rank: rankOf(last.status, last.errors),
        count: 1,
      });
    }
    const aggregateBodies: string[] = [];
    for (let i = 0; i < 12; i++) {
      const attrs = { release: choose(releases), environment: choose(environments) };
      const started = hourOf(now - Math.floor(random() * 20 * HOUR));
      const did = random() < 0.5 ? choose(dids) : undefined;
      const bucket = {
        started,
        did,
        exited: Math.floor(random() * 20),
        errored: Math.floor(random() * 3),
        crashed: Math.floor(random() * 2),
        abnormal: random() < 0.2 ? 1 : 0,
      };
      aggregateBodies.push(
        sessionEnvelope([{ type: 'sessions', payload: aggregatePayload(attrs, [bucket]) }], {
          sent_at: new Date(now + i).toISOString(),
        }),
      );
      const push = (rank: number, count: number) => {
        if (count > 0) counted.push({ ...attrs, hourStart: started, did, rank, count });
      };
      push(0, bucket.exited);
      push(1, bucket.errored);
      push(3, bucket.abnormal);
      push(4, bucket.crashed);
    }
    await Promise.all([
      ...sessions.map(async (updates) => {
        for (const update of updates) await sendUpdates(t, project, [update]).expect(200);
      }),
      ...aggregateBodies.map((body) => send(t, project, body).expect(200)),
    ]);
    await fold(t);

    const recent = counted.filter((session) => session.hourStart >= hourOf(now) - 23 * HOUR);
    for (const environment of [undefined, ...environments]) {
      const inScope = recent.filter(
        (session) => environment === undefined || session.environment === environment,
      );
      const query = environment === undefined ? '' : `?environment=${environment}`;
      const overview = (await t.api().get(`/api/projects/${project.id}/release-health${query}`).expect(200))
        .body;
      expect(pick(overview.totals)).toEqual(withoutAbnormal(expectedFigures(inScope)));
      const everyUser = expectedFigures(inScope);
      for (const release of releases) {
        const ofRelease = inScope.filter((session) => session.release === release);
        const entry = overview.releases.find((row: { version: string }) => row.version === release);
        const expected = expectedFigures(ofRelease);
        expect(pick(entry)).toEqual(withoutAbnormal(expected));
        expect(entry.adoption.sessions).toBeCloseTo((expected.sessions / everyUser.sessions) * 100, 10);
        expect(entry.adoption.users).toBeCloseTo((expected.users / everyUser.users) * 100, 10);
        const health = (
          await t
            .api()
            .get(`/api/projects/${project.id}/releases/${encodeURIComponent(release)}/health${query}`)
            .expect(200)
        ).body;
        expect(pick(health.totals)).toEqual(withoutAbnormal(expected));
        for (const bucket of health.series as (Figures & { time: string })[]) {
          const inBucket = ofRelease.filter((session) => session.hourStart === Date.parse(bucket.time));
          const { time: _, ...figures } = bucket;
          expect(figures).toEqual(expectedFigures(inBucket));
        }
      }
    }
  });

  it('deletes release health rows older than the event retention, with the rollups', async () => {
    const project = await createProject(t);
    const now = new Date();
    const old = new Date(now.getTime() - (t.config.EVENT_RETENTION_DAYS + 1) * 86_400_000);
    const db = t.app.get(DataSource);
    await db.query(
      `INSERT INTO release_health_hourly (project_id, hour, environment, release, sessions, errored, abnormal, crashed)
       SELECT $1, date_trunc('hour', h), '', 'kept@1', 1, 0, 0, 0 FROM unnest($2::timestamptz[]) AS h`,
      [project.id, [old, now]],
    );
    await db.query(
      `INSERT INTO release_health_users (project_id, hour, environment, release, user_hash, worst)
       SELECT $1, date_trunc('hour', h), '', 'kept@1', gen_random_uuid(), 0 FROM unnest($2::timestamptz[]) AS h`,
      [project.id, [old, now]],
    );
    await t.app.get(RetentionService).run(now);
    const hours = async (table: string) =>
      (
        (await db.query(`SELECT hour FROM ${table} WHERE project_id = $1`, [project.id])) as { hour: Date }[]
      ).map((row) => row.hour.getTime());
    const current = Math.floor(now.getTime() / HOUR) * HOUR;
    expect(await hours('release_health_hourly')).toEqual([current]);
    expect(await hours('release_health_users')).toEqual([current]);
  });

  it('counts sessions in their own rate-limit category, also for a project over its event limit', async () => {
    const limited = await startTestApp({
      APP_ROLE: 'api',
      MAX_EVENTS_PER_MINUTE: '2',
      MAX_EVENTS_PER_HOUR: '0',
      MAX_SESSIONS_PER_MINUTE: '3',
      MAX_SESSIONS_PER_HOUR: '0',
    });
    try {
      const project = await createProject(limited);
      const session = (): UpdateSpec => ({
        sid: newSid(),
        init: true,
        started: Date.now(),
        timestamp: Date.now(),
        status: 'ok',
        attrs: { release: 'limited@1' },
      });
      const event = () =>
        sessionEnvelope(
          [{ type: 'event', payload: { event_id: hex(randomUUID()), message: 'limited' } }],
          {},
        );
      // Sessions first: they do not use up the events' allowance.
      await sendUpdates(limited, project, [session()]).expect(200);
      await send(limited, project, event()).expect(200);
      await send(limited, project, event()).expect(200);
      const over = await send(limited, project, event()).expect(429);
      expect(over.headers['x-sentry-rate-limits']).toMatch(/^\d+:default;error;[a-z_;]+:project$/);
      expect(over.headers['x-sentry-rate-limits']).not.toMatch(/[:;]session[;:]/);
      // Over the event limit, sessions are still recorded, up to their own limit.
      await sendUpdates(limited, project, [session()]).expect(200);
      await sendUpdates(limited, project, [session()]).expect(200);
      const sessionsOver = await sendUpdates(limited, project, [session()]).expect(429);
      expect(sessionsOver.headers['x-sentry-rate-limits']).toBe(
        `${sessionsOver.headers['retry-after']}:session:project`,
      );
      // An event first in an envelope over the limit is refused before the rest is read.
      await send(
        limited,
        project,
        sessionEnvelope([
          { type: 'event', payload: { event_id: hex(randomUUID()) } },
          { type: 'session', payload: sessionPayload(session()) },
        ]),
      ).expect(429);
      expect(await outcomeTotals(limited, project)).toEqual(['rate_limited:rate_limit:1']);
    } finally {
      await limited.close();
    }
  });
});
