/**
 * What the event quota and spike protection count, end to end: only accepted events. Every kind of
 * request ingest takes is sent to a project, and after each the quota's counters (`usage` of the
 * quotas API: today, this month, this hour) are compared with the events accepted so far; with the
 * rate limits on (every request checked in the Redis script) and off (counted in memory, flushed
 * every 100 ms). Real HTTP ingest, Redis and PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { REDIS, RedisClient } from '../src/redis/redis.module';
import { startTestApp, TestApp } from './helpers/app';
import { createProject, hex, Project } from './helpers/projects';

const RATE_LIMITS_OFF = { MAX_EVENTS_PER_MINUTE: '0', MAX_EVENTS_PER_HOUR: '0' };

type Item = [Record<string, unknown>, string];

function eventPayload(message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ event_id: hex(randomUUID()), message, level: 'error', ...extra });
}

const ITEMS = {
  event: (message = 'counted'): Item => [{ type: 'event' }, eventPayload(message)],
  session: (): Item => [
    { type: 'session' },
    JSON.stringify({
      sid: hex(randomUUID()),
      init: true,
      started: new Date().toISOString(),
      timestamp: new Date().toISOString(),
      status: 'exited',
      attrs: { release: 'app@1.0.0', environment: 'production' },
    }),
  ],
  clientReport: (): Item => [
    { type: 'client_report' },
    JSON.stringify({
      timestamp: Date.now() / 1000,
      discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity: 2 }],
    }),
  ],
  feedback: (): Item => [
    { type: 'feedback' },
    JSON.stringify({
      event_id: hex(randomUUID()),
      type: 'feedback',
      contexts: { feedback: { message: 'it broke', contact_email: 'a@example.com' } },
    }),
  ],
  attachment: (): Item => [{ type: 'attachment', filename: 'log.txt' }, 'some log lines'],
  checkIn: (): Item => [
    { type: 'check_in' },
    JSON.stringify({ check_in_id: hex(randomUUID()), monitor_slug: 'nightly', status: 'ok' }),
  ],
};

function envelope(items: Item[], header: Record<string, unknown> = {}): string {
  return [
    JSON.stringify(header),
    ...items.flatMap(([itemHeader, payload]) => [JSON.stringify(itemHeader), payload]),
  ].join('\n');
}

describe.each([
  ['with the rate limits on (counted in the Redis script)', {}],
  ['with the rate limits off (counted in memory)', RATE_LIMITS_OFF],
])('event quota counters %s', (_name, limits) => {
  let t: TestApp;
  let project: Project;
  let accepted = 0;

  beforeAll(async () => {
    t = await startTestApp(limits);
    project = await createProject(t, 'Accounting');
    await t
      .api()
      .patch(`/api/projects/${project.id}/quotas`)
      .send({ daily_quota: 1_000, spike_protection: true })
      .expect(200);
    await t
      .api()
      .patch(`/api/projects/${project.id}/inbound-filters`)
      .send({ error_messages: ['*drop me*'] })
      .expect(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  const key = () => hex(project.client_key);
  const postEnvelope = (body: string | Buffer) =>
    t.http().post(`/api/${project.id}/envelope/?sentry_key=${key()}`).type('text/plain').send(body);

  async function usage(): Promise<{ today: number; this_month: number; this_hour: number }> {
    const body = (await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body;
    const { today, this_month, this_hour } = body.usage;
    return { today, this_month, this_hour };
  }

  /** The counters reach `accepted` (in memory they trail by up to a flush) and stay there. */
  async function expectCountersAtAccepted(): Promise<void> {
    const expected = { today: accepted, this_month: accepted, this_hour: accepted };
    const deadline = Date.now() + 5_000;
    let last = await usage();
    while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      last = await usage();
    }
    expect(last).toEqual(expected);
  }

  it.each<[string, () => Promise<{ status: number }>, number, number]>([
    ['an event', () => postEnvelope(envelope([ITEMS.event()])), 200, 1],
    [
      'an event dropped by an inbound filter',
      () => postEnvelope(envelope([ITEMS.event('please drop me')])),
      200,
      0,
    ],
    [
      'a filtered event with an attachment',
      () => postEnvelope(envelope([ITEMS.event('drop me too'), ITEMS.attachment()])),
      200,
      0,
    ],
    [
      'a bad event (400)',
      () => postEnvelope(envelope([[{ type: 'event' }, JSON.stringify({ event_id: 'not-an-id' })]])),
      400,
      0,
    ],
    [
      'an event over the size limit (413)',
      () => postEnvelope(envelope([[{ type: 'event' }, eventPayload('x'.repeat(1_100_000))]])),
      413,
      0,
    ],
    ['client reports only', () => postEnvelope(envelope([ITEMS.clientReport()])), 200, 0],
    ['feedback only', () => postEnvelope(envelope([ITEMS.feedback()])), 200, 0],
    ['attachments only', () => postEnvelope(envelope([ITEMS.attachment()])), 200, 0],
    ['sessions only', () => postEnvelope(envelope([ITEMS.session(), ITEMS.clientReport()])), 200, 0],
    ['check-ins only', () => postEnvelope(envelope([ITEMS.checkIn()])), 200, 0],
    [
      'an event with sessions and a client report',
      () => postEnvelope(envelope([ITEMS.event(), ITEMS.session(), ITEMS.clientReport()])),
      200,
      1,
    ],
    [
      'an event by the store endpoint',
      () =>
        t
          .http()
          .post(`/api/${project.id}/store/?sentry_key=${key()}`)
          .type('application/json')
          .send(eventPayload('stored')),
      200,
      1,
    ],
    [
      'a filtered event by the store endpoint',
      () =>
        t
          .http()
          .post(`/api/${project.id}/store/?sentry_key=${key()}`)
          .type('application/json')
          .send(eventPayload('drop me')),
      200,
      0,
    ],
    [
      'a bad event by the store endpoint (400)',
      () =>
        t
          .http()
          .post(`/api/${project.id}/store/?sentry_key=${key()}`)
          .type('application/json')
          .send('{"message": "cut short'),
      400,
      0,
    ],
    [
      'an event by the GET beacon',
      () =>
        t
          .http()
          .get(`/api/${project.id}/store/`)
          .query({ sentry_key: key(), sentry_version: '7', sentry_data: eventPayload('beacon') }),
      200,
      1,
    ],
    [
      'a filtered event by the GET beacon',
      () =>
        t
          .http()
          .get(`/api/${project.id}/store/`)
          .query({ sentry_key: key(), sentry_version: '7', sentry_data: eventPayload('beacon, drop me') }),
      200,
      0,
    ],
    [
      'a GET beacon without data (400)',
      () => t.http().get(`/api/${project.id}/store/`).query({ sentry_key: key(), sentry_version: '7' }),
      400,
      0,
    ],
  ])('%s: counts what was accepted', async (_kind, send, status, events) => {
    const response = await send();
    expect(response.status).toBe(status);
    accepted += events;
    await expectCountersAtAccepted();
  });

  it('an event the queue cannot take (503) is not counted', async () => {
    const redis = t.app.get<RedisClient>(REDIS);
    // The queue's job counter with the wrong type: adding a job fails as on a broken Redis, while
    // the limits' keys still answer.
    const idKey = `${t.config.REDIS_PREFIX}:digest:id`;
    const saved = await redis.get(idKey);
    await redis.del(idKey);
    await redis.hset(idKey, 'broken', '1');
    try {
      const response = await postEnvelope(envelope([ITEMS.event()]));
      expect(response.status).toBe(503);
    } finally {
      await redis.del(idKey);
      if (saved !== null) await redis.set(idKey, saved);
    }
    await expectCountersAtAccepted();
    await postEnvelope(envelope([ITEMS.event()])).expect(200);
    accepted += 1;
    await expectCountersAtAccepted();
  });

  it('filtered events never use up a daily quota: a real error gets through after them', async () => {
    const other = await createProject(t, 'Filtered quota');
    await t.api().patch(`/api/projects/${other.id}/quotas`).send({ daily_quota: 5 }).expect(200);
    await t
      .api()
      .patch(`/api/projects/${other.id}/inbound-filters`)
      .send({ error_messages: ['*noise*'] })
      .expect(200);
    const send = (message: string) =>
      t
        .http()
        .post(`/api/${other.id}/envelope/?sentry_key=${hex(other.client_key)}`)
        .type('text/plain')
        .send(envelope([ITEMS.event(message)]));
    for (let i = 0; i < 5; i++) await send('noise').expect(200);
    for (let i = 0; i < 5; i++) await send('a real error').expect(200);
    await send('one too many').expect(429);
  });
});
