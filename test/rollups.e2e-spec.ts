import { Queue, QueueEvents } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import type { NormalisedEvent } from '../src/events/normalised-event';
import { QueuedEvent, digestJobId, DigestJobName } from '../src/digest/digest-job';
import { redisOptions } from '../src/redis/redis.module';
import { eventTags } from '../src/rollups/event-tags';
import { startTestApp, TestApp } from './helpers/app';
import { eventually, openQueue } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Deterministic pseudo-random numbers in [0, 1), so a failing run can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Real browser User-Agent strings and what they are (browser name and version, OS name and version). */
const USER_AGENTS = [
  {
    header:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    browser: 'Chrome 120.0.0.0',
    browserName: 'Chrome',
    os: 'Windows 10',
    osName: 'Windows',
  },
  {
    header: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
    browser: 'Firefox 121.0',
    browserName: 'Firefox',
    os: 'Ubuntu',
    osName: 'Ubuntu',
  },
  {
    header:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
    browser: 'Mobile Safari 17.1',
    browserName: 'Mobile Safari',
    os: 'iOS 17.1',
    osName: 'iOS',
  },
  // Not a browser: no browser or OS tags.
  { header: 'curl/8.4.0', browser: null, browserName: null, os: null, osName: null },
];

/** Values of one tag with ties and characters a cursor must carry: more than one page of them. */
const ORDER_IDS = [
  ...Array.from({ length: 26 }, (_, i) => `order-${String(i).padStart(3, '0')}`),
  'a|b',
  'x y',
  'ördér-ü',
  '🔥 hot',
  '"quoted"',
  'UPPER',
  'lower',
  '0-first',
];

/** One event of the stream: what is sent, and what it must be counted as. */
interface StreamEvent {
  projectId: number;
  group: string;
  eventId: string;
  receivedAt: number;
  payload: Record<string, unknown>;
  timestamp: number;
  environment: string | null;
  tags: Map<string, string>;
}

interface Bucket {
  start: string;
  count: number;
}

function job(event: StreamEvent, jobId: string, receivedAt = event.receivedAt) {
  const data: QueuedEvent = {
    projectId: event.projectId,
    eventId: event.eventId,
    receivedAt,
    payload: JSON.stringify(event.payload),
  };
  return {
    name: DigestJobName.Event,
    data,
    opts: {
      jobId,
      removeOnComplete: true,
      removeOnFail: 1000,
      attempts: 3,
      backoff: { type: 'exponential', delay: 200 },
    },
  };
}

/**
 * Builds a mixed stream: several issues, environments, releases, levels, users identified in every
 * way Sentry knows, request URLs, browser User-Agents, runtime and device contexts, valid and
 * invalid custom tags, and timestamps over the last 14 days. The expected tags are worked out here,
 * from what is sent, independently of the tracker's code.
 */
function buildStream(
  random: () => number,
  projectId: number,
  groups: string[],
  count: number,
  now: number,
  receivedAt: number,
): StreamEvent[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const events: StreamEvent[] = [];
  for (let i = 0; i < count; i++) {
    const group = groups[Math.floor(random() ** 1.5 * groups.length)];
    const tags = new Map<string, string>();
    const payload: Record<string, unknown> = {
      platform: 'javascript',
      message: `rollup stream ${group}`,
      fingerprint: [group],
    };

    // Timestamps: 40 % within the last 20 hours, the rest spread over 14 days; two formats.
    const offset = random() < 0.4 ? random() * 20 * HOUR : 20 * HOUR + random() * (13.5 * DAY - 20 * HOUR);
    const timestamp = Math.floor(now - offset);
    payload.timestamp = random() < 0.5 ? new Date(timestamp).toISOString() : timestamp / 1000;

    const environment = pick(['production', 'production', 'staging', 'dev', null]);
    if (environment) {
      payload.environment = environment;
      tags.set('environment', environment);
    }
    const release = pick(['web@1.0.0', 'web@1.1.0', null]);
    if (release) {
      payload.release = release;
      tags.set('release', release);
    }
    const [sentLevel, level] = pick([
      [undefined, 'error'],
      ['error', 'error'],
      ['warning', 'warning'],
      ['warn', 'warning'],
      ['fatal', 'fatal'],
    ] as const);
    if (sentLevel) payload.level = sentLevel;
    tags.set('level', level);

    const k = 1 + Math.floor(random() * 9);
    const [user, userTag] = pick<[Record<string, unknown> | undefined, string | null]>([
      [{ id: `u${k}` }, `id:u${k}`],
      [{ id: `u${k}`, email: `user${k}@example.com` }, `id:u${k}`],
      [{ email: `user${k}@example.com` }, `email:user${k}@example.com`],
      [{ id: '', email: `user${k}@example.com` }, `email:user${k}@example.com`],
      [{ ip_address: `10.0.0.${k}` }, `ip:10.0.0.${k}`],
      [{ username: `name${k}` }, `username:name${k}`],
      [{ email: `user${k}@example.com`, username: `name${k}` }, `email:user${k}@example.com`],
      [{ id: k }, `id:${k}`],
      [undefined, null],
      [undefined, null],
    ]);
    if (user) payload.user = user;
    if (userTag) tags.set('user', userTag);
    if (typeof user?.email === 'string') tags.set('user.email', user.email);

    const serverName = pick(['web-1', 'web-2', null]);
    if (serverName) {
      payload.server_name = serverName;
      tags.set('server_name', serverName);
    }

    const request: Record<string, unknown> = {};
    const [url, urlTag] = pick<[string | null, string | null]>([
      ['https://shop.example.com/cart?item=12#top', 'https://shop.example.com/cart'],
      ['https://shop.example.com/cart', 'https://shop.example.com/cart'],
      ['https://shop.example.com/checkout#pay', 'https://shop.example.com/checkout'],
      [null, null],
    ]);
    if (url) {
      request.url = url;
      tags.set('url', urlTag as string);
    }
    const agent = random() < 0.8 ? pick(USER_AGENTS) : null;
    if (agent) {
      const style = pick(['object', 'lowercase', 'pairs']);
      request.headers =
        style === 'object'
          ? { 'User-Agent': agent.header, Accept: '*/*' }
          : style === 'lowercase'
            ? { 'user-agent': agent.header }
            : [
                ['Accept', '*/*'],
                ['User-Agent', agent.header],
              ];
    }
    if (Object.keys(request).length > 0) payload.request = request;

    const transaction = pick(['/cart', '/checkout', null]);
    if (transaction) {
      payload.transaction = transaction;
      tags.set('transaction', transaction);
    }

    const contexts: Record<string, unknown> = {};
    // An SDK's own browser context wins over the User-Agent.
    const sdkBrowser = random() < 0.15;
    if (sdkBrowser) contexts.browser = { name: 'Edge', version: '119' };
    if (random() < 0.3) contexts.runtime = { name: 'node', version: 'v20.1.0' };
    if (random() < 0.2) contexts.device = { model: 'Pixel 8' };
    if (Object.keys(contexts).length > 0) payload.contexts = contexts;
    if (sdkBrowser) {
      tags.set('browser', 'Edge 119');
      tags.set('browser.name', 'Edge');
    } else if (agent?.browser) {
      tags.set('browser', agent.browser);
      tags.set('browser.name', agent.browserName as string);
    }
    if (agent?.os) {
      tags.set('os', agent.os);
      tags.set('os.name', agent.osName as string);
    }
    if (contexts.runtime) {
      tags.set('runtime', 'node v20.1.0');
      tags.set('runtime.name', 'node');
    }
    if (contexts.device) tags.set('device', 'Pixel 8');

    const custom: Record<string, unknown> = {};
    const feature = pick(['checkout', 'search', 'cart', null]);
    if (feature) {
      custom.feature = feature;
      tags.set('feature', feature);
    }
    if (group === groups[0]) {
      const orderId = ORDER_IDS[Math.floor(random() ** 2 * ORDER_IDS.length)];
      custom.order_id = orderId;
      tags.set('order_id', orderId);
    }
    if (random() < 0.3) {
      custom.attempt = 3; // a number: counted as the text "3"
      tags.set('attempt', '3');
    }
    // Never indexed: a key with a space, a key longer than 32, a built-in name, a multi-line value, a
    // blank value.
    if (random() < 0.3) {
      custom['bad key'] = 'x';
      custom.averyveryveryveryverylongtagkeyname = 'y';
      custom.level = 'bogus';
      custom.multi = 'line1\nline2';
      custom.blank = '   ';
    }
    if (Object.keys(custom).length > 0) payload.tags = custom;

    events.push({
      projectId,
      group,
      eventId: randomUUID(),
      receivedAt,
      payload,
      timestamp,
      environment,
      tags,
    });
  }
  return events;
}

/** Buckets of a stats window computed from timestamps, the way the API documents them. */
function expectedBuckets(timestamps: number[], period: '24h' | '14d' | '90d', at: number): Bucket[] {
  const size = period === '24h' ? HOUR : DAY;
  const count = period === '24h' ? 24 : period === '14d' ? 14 : 90;
  const end = (Math.floor(at / size) + 1) * size;
  const start = end - count * size;
  return Array.from({ length: count }, (_, i) => {
    const from = start + i * size;
    return {
      start: new Date(from).toISOString(),
      count: timestamps.filter((ts) => ts >= from && ts < from + size).length,
    };
  });
}

type Counts = Map<string, Map<string, { count: number; first: number; last: number }>>;

/** Per issue: key → value → count (and first/last timestamp). */
function countTags(
  events: { issueId: number; timestamp: number; tags: Map<string, string> }[],
): Map<number, Counts> {
  const result = new Map<number, Counts>();
  for (const event of events) {
    const perIssue = result.get(event.issueId) ?? new Map();
    result.set(event.issueId, perIssue);
    for (const [key, value] of event.tags) {
      const values = perIssue.get(key) ?? new Map();
      perIssue.set(key, values);
      const current = values.get(value);
      if (!current) values.set(value, { count: 1, first: event.timestamp, last: event.timestamp });
      else {
        current.count += 1;
        current.first = Math.min(current.first, event.timestamp);
        current.last = Math.max(current.last, event.timestamp);
      }
    }
  }
  return result;
}

type TagValueRow = { issue_id: number; key: string; value: string; count: number };
type TagKeyRow = { issue_id: number; key: string; total: number; distinct_values: number };

function tagValueRows(counts: Map<number, Counts>, onlyKeys?: Set<string>): TagValueRow[] {
  const rows: TagValueRow[] = [];
  for (const [issueId, keys] of counts) {
    for (const [key, values] of keys) {
      if (onlyKeys && !onlyKeys.has(key)) continue;
      for (const [value, { count }] of values) rows.push({ issue_id: issueId, key, value, count });
    }
  }
  return sortRows(rows);
}

function tagKeyRows(counts: Map<number, Counts>, onlyKeys?: Set<string>): TagKeyRow[] {
  const rows: TagKeyRow[] = [];
  for (const [issueId, keys] of counts) {
    for (const [key, values] of keys) {
      if (onlyKeys && !onlyKeys.has(key)) continue;
      const total = [...values.values()].reduce((sum, value) => sum + value.count, 0);
      rows.push({ issue_id: issueId, key, total, distinct_values: values.size });
    }
  }
  return sortRows(rows);
}

/** A canonical order for comparing row sets (code-unit order, independent of any collation). */
function sortRows<T extends object>(rows: T[]): T[] {
  const text = (row: T) => JSON.stringify(Object.values(row));
  return [...rows].sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

describe('rollups', () => {
  let t: TestApp;
  let worker: TestApp;
  let db: DataSource;
  let digest: Queue;
  let main: number;
  let other: number;
  let stream: StreamEvent[];
  /** event id → issue id, as stored. */
  const issueOf = new Map<string, number>();
  /** group → issue id */
  const issueOfGroup = new Map<string, number>();
  let issueIds: number[];
  const runTag = randomUUID().slice(0, 8);
  const mainGroups = [0, 1, 2, 3, 4].map((n) => `rollups-${runTag}-main-${n}`);
  const otherGroups = [0, 1].map((n) => `rollups-${runTag}-other-${n}`);
  const now = Date.now();

  async function drained(): Promise<void> {
    await eventually(async () => {
      const counts = await digest.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused');
      return Object.values(counts).every((n) => n === 0);
    }, 40_000);
  }

  async function storedCount(projectIds: number[]): Promise<number> {
    const [{ n }] = await db.query('SELECT count(*)::int AS n FROM events WHERE project_id = ANY($1)', [
      projectIds,
    ]);
    return n;
  }

  /** Stats read at a known time: re-read when a bucket boundary passed during the request. */
  async function statsOf(
    path: string,
    period: '24h' | '14d' | '90d',
  ): Promise<{ body: { period: string; interval: string; buckets: Bucket[] }; at: number }> {
    const size = period === '24h' ? HOUR : DAY;
    for (;;) {
      const before = Date.now();
      const response = await t
        .api()
        .get(`${path}${path.includes('?') ? '&' : '?'}period=${period}`)
        .expect(200);
      if (Math.floor(before / size) === Math.floor(Date.now() / size))
        return { body: response.body, at: before };
    }
  }

  /** PostgreSQL's own order of these strings (the tie-break of tag values is the database's). */
  async function pgOrder(values: string[]): Promise<Map<string, number>> {
    const rows: { v: string }[] = await db.query('SELECT v FROM unnest($1::text[]) AS v ORDER BY v', [
      [...new Set(values)],
    ]);
    return new Map(rows.map((row, index) => [row.v, index]));
  }

  beforeAll(async () => {
    // Small batches, and a second worker process on the same queue: the stream is stored by many
    // concurrent transactions, as in production.
    t = await startTestApp({ DIGEST_CONCURRENCY: '16' });
    worker = await startTestApp({
      APP_ROLE: 'worker',
      REDIS_PREFIX: t.config.REDIS_PREFIX,
      DIGEST_CONCURRENCY: '16',
    });
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
    const queueEvents = new QueueEvents(QueueName.Digest, {
      connection: redisOptions(t.config.REDIS_URL),
      prefix: t.config.REDIS_PREFIX,
    });
    await queueEvents.waitUntilReady();
    let completed = 0;
    queueEvents.on('completed', () => completed++);
    main = (await t.api().post('/api/projects').send({ name: 'Rollups Main' }).expect(201)).body.id;
    other = (await t.api().post('/api/projects').send({ name: 'Rollups Other' }).expect(201)).body.id;

    const random = seededRandom(20_260_701);
    const receivedAt = Date.now();
    stream = [
      ...buildStream(random, main, mainGroups, 260, now, receivedAt),
      ...buildStream(random, other, otherGroups, 40, now, receivedAt),
    ];

    // First burst: every event, plus duplicated event ids under other job ids in the same burst.
    const dupes = stream.filter((_, index) => index % 13 === 0);
    const first = stream.map((event) => job(event, digestJobId(event.projectId, event.eventId)));
    const again = dupes.map((event) => job(event, `${digestJobId(event.projectId, event.eventId)}_dup`));
    const burst = [...first, ...again].sort(() => random() - 0.5);
    await digest.addBulk(burst);
    await eventually(async () => (await storedCount([main, other])) >= stream.length, 40_000);
    await drained();
    // Every job ran: BullMQ did not collapse the duplicates, the database had to.
    await eventually(async () => completed === burst.length);

    // The same stream again: redeliveries of the same job data under the same job ids, and resends
    // that ingest accepted again a little later.
    const redelivered = [
      ...stream.map((event) => job(event, digestJobId(event.projectId, event.eventId))),
      ...stream
        .filter((_, index) => index % 5 === 0)
        .map((event) => job(event, `${digestJobId(event.projectId, event.eventId)}_resent`, Date.now())),
    ];
    await digest.addBulk(redelivered);
    await drained();
    await eventually(async () => completed === burst.length + redelivered.length);
    await settleRollups(t.app);
    await queueEvents.close();
    expect(await digest.getFailedCount()).toBe(0);

    const rows: { id: string; issue_id: number }[] = await db.query(
      'SELECT id, issue_id FROM events WHERE project_id = ANY($1)',
      [[main, other]],
    );
    for (const row of rows) issueOf.set(row.id, row.issue_id);
    for (const event of stream) {
      const issueId = issueOf.get(event.eventId);
      if (issueId === undefined) continue;
      if (!issueOfGroup.has(event.group)) issueOfGroup.set(event.group, issueId);
    }
    issueIds = [...new Set(issueOfGroup.values())];
  }, 90_000);

  afterAll(async () => {
    await digest.close();
    await worker.close();
    await t.close();
  });

  const eventsOfIssue = (issueId: number) => stream.filter((event) => issueOf.get(event.eventId) === issueId);
  const expectedCounted = () =>
    stream.map((event) => ({
      issueId: issueOf.get(event.eventId) as number,
      timestamp: event.timestamp,
      tags: event.tags,
    }));

  it('stores every event of the stream exactly once, one issue per group', async () => {
    expect(await storedCount([main, other])).toBe(stream.length);
    expect(new Set(stream.map((event) => event.eventId)).size).toBe(stream.length);
    expect(stream.every((event) => issueOf.has(event.eventId))).toBe(true);
    // Every event of a group is in its group's issue, and groups do not share issues.
    for (const event of stream) expect(issueOf.get(event.eventId)).toBe(issueOfGroup.get(event.group));
    expect(issueIds).toHaveLength(mainGroups.length + otherGroups.length);
  });

  it('counts issue_hourly and project_hourly exactly as the events table', async () => {
    const fromEvents = await db.query(
      `SELECT issue_id, date_trunc('hour', timestamp, 'UTC') AS hour, coalesce(environment, '') AS environment,
              count(*)::int AS count
         FROM events WHERE issue_id = ANY($1) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [issueIds],
    );
    const issueHourly = await db.query(
      'SELECT issue_id, hour, environment, count FROM issue_hourly WHERE issue_id = ANY($1) ORDER BY 1, 2, 3',
      [issueIds],
    );
    expect(issueHourly.length).toBeGreaterThan(50);
    expect(issueHourly).toEqual(fromEvents);

    const projectFromEvents = await db.query(
      `SELECT project_id, date_trunc('hour', timestamp, 'UTC') AS hour, coalesce(environment, '') AS environment,
              count(*)::int AS count
         FROM events WHERE project_id = ANY($1) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [[main, other]],
    );
    const projectHourly = await db.query(
      'SELECT project_id, hour, environment, count FROM project_hourly WHERE project_id = ANY($1) ORDER BY 1, 2, 3',
      [[main, other]],
    );
    expect(projectHourly).toEqual(projectFromEvents);

    // And both are what was sent.
    const expected = new Map<string, number>();
    for (const event of stream) {
      const key = `${issueOf.get(event.eventId)}|${Math.floor(event.timestamp / HOUR) * HOUR}|${event.environment ?? ''}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    const actual = new Map<string, number>(
      issueHourly.map((row: { issue_id: number; hour: Date; environment: string; count: number }) => [
        `${row.issue_id}|${row.hour.getTime()}|${row.environment}`,
        row.count,
      ]),
    );
    expect(actual).toEqual(expected);
  });

  it('counts issue_tag_values and issue_tag_keys as the stored events’ tags, and as sent', async () => {
    // 1. The simple keys, recomputed in SQL from the stored columns and payloads.
    const simpleKeys = new Set([
      'environment',
      'release',
      'level',
      'user',
      'user.email',
      'feature',
      'order_id',
      'attempt',
    ]);
    const fromSql: TagValueRow[] = await db.query(
      `WITH tags AS (
         SELECT issue_id, 'environment' AS key, environment AS value FROM events
          WHERE issue_id = ANY($1) AND environment IS NOT NULL
         UNION ALL
         SELECT issue_id, 'release', release FROM events WHERE issue_id = ANY($1) AND release IS NOT NULL
         UNION ALL
         SELECT issue_id, 'level', level FROM events WHERE issue_id = ANY($1)
         UNION ALL
         SELECT issue_id, 'user', u.value FROM events,
                LATERAL (SELECT CASE
                  WHEN nullif(payload->'user'->>'id', '') IS NOT NULL THEN 'id:' || (payload->'user'->>'id')
                  WHEN nullif(payload->'user'->>'email', '') IS NOT NULL THEN 'email:' || (payload->'user'->>'email')
                  WHEN nullif(payload->'user'->>'ip_address', '') IS NOT NULL THEN 'ip:' || (payload->'user'->>'ip_address')
                  WHEN nullif(payload->'user'->>'username', '') IS NOT NULL THEN 'username:' || (payload->'user'->>'username')
                END AS value) u
          WHERE issue_id = ANY($1) AND u.value IS NOT NULL
         UNION ALL
         SELECT issue_id, 'user.email', payload->'user'->>'email' FROM events
          WHERE issue_id = ANY($1) AND nullif(payload->'user'->>'email', '') IS NOT NULL
         UNION ALL
         SELECT e.issue_id, kv.key, kv.value FROM events e, jsonb_each_text(e.payload->'tags') kv
          WHERE e.issue_id = ANY($1) AND kv.key IN ('feature', 'order_id', 'attempt')
       )
       SELECT issue_id, key, value, count(*)::int AS count FROM tags GROUP BY 1, 2, 3`,
      [issueIds],
    );
    const sqlRows = sortRows(
      fromSql.map((row) => ({ issue_id: row.issue_id, key: row.key, value: row.value, count: row.count })),
    );
    const storedValues: TagValueRow[] = sortRows(
      await db.query('SELECT issue_id, key, value, count FROM issue_tag_values WHERE issue_id = ANY($1)', [
        issueIds,
      ]),
    );
    const storedKeys: TagKeyRow[] = sortRows(
      await db.query(
        'SELECT issue_id, key, total, distinct_values FROM issue_tag_keys WHERE issue_id = ANY($1)',
        [issueIds],
      ),
    );
    expect(storedValues.filter((row) => simpleKeys.has(row.key))).toEqual(sqlRows);

    // 2. Every key, with the tracker's own tag extraction, over the full events: as the API serves
    // them, with the stored payload's user (the API shows only its id and e-mail).
    const payloads = new Map<string, Record<string, unknown>>(
      (await db.query('SELECT id, payload FROM events WHERE issue_id = ANY($1)', [issueIds])).map(
        (row: { id: string; payload: Record<string, unknown> }) => [row.id, row.payload],
      ),
    );
    const served: { issueId: number; timestamp: number; tags: Map<string, string> }[] = [];
    for (const event of stream) {
      const response = await t.api().get(`/api/events/${event.eventId}`).expect(200);
      const stored = payloads.get(event.eventId) as Record<string, unknown>;
      expect(response.body).toMatchObject({
        id: event.eventId,
        tags: stored.tags,
        contexts: stored.contexts,
      });
      served.push({
        issueId: response.body.issue_id,
        timestamp: Date.parse(response.body.timestamp),
        tags: eventTags({ ...response.body, user: stored.user ?? null } as NormalisedEvent),
      });
    }
    const fromServed = countTags(served);
    expect(storedValues).toEqual(tagValueRows(fromServed));
    expect(storedKeys).toEqual(tagKeyRows(fromServed));

    // 3. And what was sent, worked out independently.
    const fromStream = countTags(expectedCounted());
    expect(storedValues).toEqual(tagValueRows(fromStream));
    expect(storedKeys).toEqual(tagKeyRows(fromStream));
    expect(storedKeys.some((row) => row.key === 'browser')).toBe(true);
    expect(storedKeys.some((row) => ['bad key', 'multi', 'blank'].includes(row.key))).toBe(false);

    // First and last seen of each value.
    const seen: { issue_id: number; key: string; value: string; first_seen: Date; last_seen: Date }[] =
      await db.query(
        'SELECT issue_id, key, value, first_seen, last_seen FROM issue_tag_values WHERE issue_id = ANY($1)',
        [issueIds],
      );
    for (const row of seen) {
      const expected = fromStream.get(row.issue_id)?.get(row.key)?.get(row.value);
      expect([row.key, row.value, row.first_seen.getTime(), row.last_seen.getTime()]).toEqual([
        row.key,
        row.value,
        expected?.first,
        expected?.last,
      ]);
    }
  });

  it('keeps event_count and user_count equal to the events and their distinct users', async () => {
    const fromEvents: { id: number; events: number; users: number }[] = await db.query(
      `SELECT i.id, (SELECT count(*)::int FROM events e WHERE e.issue_id = i.id) AS events,
              (SELECT count(DISTINCT CASE
                  WHEN nullif(payload->'user'->>'id', '') IS NOT NULL THEN 'id:' || (payload->'user'->>'id')
                  WHEN nullif(payload->'user'->>'email', '') IS NOT NULL THEN 'email:' || (payload->'user'->>'email')
                  WHEN nullif(payload->'user'->>'ip_address', '') IS NOT NULL THEN 'ip:' || (payload->'user'->>'ip_address')
                  WHEN nullif(payload->'user'->>'username', '') IS NOT NULL THEN 'username:' || (payload->'user'->>'username')
                END)::int FROM events e WHERE e.issue_id = i.id) AS users
         FROM issues i WHERE i.id = ANY($1) ORDER BY i.id`,
      [issueIds],
    );
    for (const row of fromEvents) {
      const sent = eventsOfIssue(row.id);
      const users = new Set(sent.map((event) => event.tags.get('user')).filter((user) => user !== undefined));
      expect([row.events, row.users]).toEqual([sent.length, users.size]);
      const issue = await t.api().get(`/api/issues/${row.id}`).expect(200);
      expect({ id: row.id, event_count: issue.body.event_count, user_count: issue.body.user_count }).toEqual({
        id: row.id,
        event_count: sent.length,
        user_count: users.size,
      });
      expect(users.size).toBeGreaterThan(1);
    }
  });

  it('answers issue and project stats for 24h, 14d and 90d with the right buckets', async () => {
    const scopes: [string, number[]][] = [
      ...issueIds.map((id): [string, number[]] => [
        `/api/issues/${id}/stats`,
        eventsOfIssue(id).map((e) => e.timestamp),
      ]),
      [`/api/projects/${main}/stats`, stream.filter((e) => e.projectId === main).map((e) => e.timestamp)],
      [`/api/projects/${other}/stats`, stream.filter((e) => e.projectId === other).map((e) => e.timestamp)],
    ];
    for (const [path, timestamps] of scopes) {
      for (const period of ['24h', '14d', '90d'] as const) {
        const { body, at } = await statsOf(path, period);
        expect({ path, period: body.period, interval: body.interval }).toEqual({
          path,
          period,
          interval: period === '24h' ? '1h' : '1d',
        });
        expect(body.buckets).toEqual(expectedBuckets(timestamps, period, at));
      }
      // Every event of the stream is within the last 14 days, all of them within 90.
      const { body } = await statsOf(path, '90d');
      expect(body.buckets.reduce((sum: number, bucket: Bucket) => sum + bucket.count, 0)).toBe(
        timestamps.length,
      );
    }
    // The default period is 24h.
    const defaulted = await t.api().get(`/api/projects/${main}/stats`).expect(200);
    expect([defaulted.body.period, defaulted.body.interval, defaulted.body.buckets.length]).toEqual([
      '24h',
      '1h',
      24,
    ]);
    // The last bucket is the current hour (24h) or day (14d).
    const hourly = await statsOf(`/api/projects/${main}/stats`, '24h');
    expect(hourly.body.buckets.at(-1)?.start).toBe(
      new Date(Math.floor(hourly.at / HOUR) * HOUR).toISOString(),
    );
    const daily = await statsOf(`/api/projects/${main}/stats`, '14d');
    expect(daily.body.buckets.at(-1)?.start).toBe(new Date(Math.floor(daily.at / DAY) * DAY).toISOString());
    expect(daily.body.buckets[0].start).toBe(
      new Date(Math.floor(daily.at / DAY) * DAY - 13 * DAY).toISOString(),
    );
  });

  it('scopes stats to one environment', async () => {
    const issueId = issueOfGroup.get(mainGroups[0]) as number;
    for (const environment of ['production', 'staging', 'dev', 'nowhere']) {
      const ofIssue = eventsOfIssue(issueId).filter((event) => event.environment === environment);
      const ofProject = stream.filter(
        (event) => event.projectId === main && event.environment === environment,
      );
      for (const period of ['24h', '14d', '90d'] as const) {
        const issue = await statsOf(`/api/issues/${issueId}/stats?environment=${environment}`, period);
        expect(issue.body.buckets).toEqual(
          expectedBuckets(
            ofIssue.map((e) => e.timestamp),
            period,
            issue.at,
          ),
        );
        const project = await statsOf(`/api/projects/${main}/stats?environment=${environment}`, period);
        expect(project.body.buckets).toEqual(
          expectedBuckets(
            ofProject.map((e) => e.timestamp),
            period,
            project.at,
          ),
        );
      }
      if (environment !== 'nowhere') expect(ofProject.length).toBeGreaterThan(0);
    }
  });

  it('rejects unknown periods naming `period`, and answers 404 for unknown issues and projects', async () => {
    for (const period of ['7d', '1h', '', '24H']) {
      const response = await t.api().get(`/api/projects/${main}/stats?period=${period}`).expect(400);
      expect(response.body.error).toMatch(/period/);
      const issue = await t.api().get(`/api/issues/${issueIds[0]}/stats?period=${period}`).expect(400);
      expect(issue.body.error).toMatch(/period/);
    }
    await t.api().get('/api/issues/99999999/stats?period=24h').expect(404, { error: 'issue not found' });
    await t.api().get('/api/projects/99999999/stats?period=24h').expect(404, { error: 'project not found' });
    await t.api().get('/api/issues/99999999/tags').expect(404, { error: 'issue not found' });
    await t.api().get('/api/issues/99999999/tags/level').expect(404, { error: 'issue not found' });
    await t.api().get('/api/issues/abc/stats').expect(400);
  });

  it('summarises tags: keys by total, with totals, distinct counts and the top 10 values', async () => {
    const counted = countTags(expectedCounted());
    const allValues = [...counted.values()].flatMap((keys) =>
      [...keys.values()].flatMap((values) => [...values.keys()]),
    );
    const allKeys = [...counted.values()].flatMap((keys) => [...keys.keys()]);
    const order = await pgOrder([...allValues, ...allKeys]);
    const byPg = (a: string, b: string) => (order.get(a) as number) - (order.get(b) as number);
    for (const issueId of issueIds) {
      const keys = counted.get(issueId) as Counts;
      const expected = [...keys]
        .map(([key, values]) => ({
          key,
          total: [...values.values()].reduce((sum, value) => sum + value.count, 0),
          distinct: values.size,
          top: [...values]
            .map(([value, { count }]) => ({ value, count }))
            .sort((a, b) => b.count - a.count || byPg(a.value, b.value))
            .slice(0, 10),
        }))
        .sort((a, b) => b.total - a.total || byPg(a.key, b.key));
      const response = await t.api().get(`/api/issues/${issueId}/tags`).expect(200);
      expect(response.body).toEqual({ data: expected });
    }
    // The group with order ids has more than 10 values of that key: the summary shows 10.
    const first = await t
      .api()
      .get(`/api/issues/${issueOfGroup.get(mainGroups[0])}/tags`)
      .expect(200);
    const orderIds = first.body.data.find((entry: { key: string }) => entry.key === 'order_id');
    expect(orderIds.distinct).toBeGreaterThan(10);
    expect(orderIds.top).toHaveLength(10);
    const user = first.body.data.find((entry: { key: string }) => entry.key === 'user');
    const issue = await t
      .api()
      .get(`/api/issues/${issueOfGroup.get(mainGroups[0])}`)
      .expect(200);
    expect(user.distinct).toBe(issue.body.user_count);
  });

  it('pages through all values of a key exactly once, most frequent first', async () => {
    const issueId = issueOfGroup.get(mainGroups[0]) as number;
    const counted = (countTags(expectedCounted()).get(issueId) as Counts).get('order_id') as Map<
      string,
      { count: number }
    >;
    const order = await pgOrder([...counted.keys()]);
    const expected = [...counted]
      .map(([value, { count }]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || (order.get(a.value) as number) - (order.get(b.value) as number));
    expect(expected.length).toBeGreaterThan(14);
    // Ties across page boundaries: several values share a count.
    expect(new Set(expected.map((row) => row.count)).size).toBeLessThan(expected.length);

    for (const limit of [1, 7, expected.length, 1000]) {
      const seen: { value: string; count: number }[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor
          ? `limit=${limit}&cursor=${encodeURIComponent(cursor)}`
          : `limit=${limit}`;
        const response = await t.api().get(`/api/issues/${issueId}/tags/order_id?${query}`).expect(200);
        expect(Object.keys(response.body).sort()).toEqual(['data', 'next_cursor']);
        expect(response.body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...response.body.data);
        cursor = response.body.next_cursor;
        pages++;
      } while (cursor && pages < 100);
      expect({ limit, pages }).toEqual({ limit, pages: Math.max(1, Math.ceil(expected.length / limit)) });
      expect(seen).toEqual(expected);
    }
    // The default page holds them all.
    const all = await t.api().get(`/api/issues/${issueId}/tags/order_id`).expect(200);
    expect(all.body).toEqual({ data: expected, next_cursor: null });
  });

  it('answers 404 for a key the issue does not have, 400 for malformed keys and cursors', async () => {
    const issueId = issueOfGroup.get(mainGroups[1]) as number;
    await t.api().get(`/api/issues/${issueId}/tags/nope`).expect(404, { error: 'tag not found' });
    // order_id exists on another issue only.
    expect(eventsOfIssue(issueId).some((event) => event.tags.has('order_id'))).toBe(false);
    await t.api().get(`/api/issues/${issueId}/tags/order_id`).expect(404, { error: 'tag not found' });
    for (const bad of ['bad%20key', 'k'.repeat(33), 'a%2Fb', 'x%0Ay']) {
      const response = await t.api().get(`/api/issues/${issueId}/tags/${bad}`).expect(400);
      expect(response.body.error).toMatch(/key/);
    }
    await t
      .api()
      .get(`/api/issues/${issueId}/tags/level?cursor=garbage!`)
      .expect(400, { error: 'cursor is not valid' });
    await t.api().get(`/api/issues/${issueId}/tags/level?limit=0`).expect(400);
    await t
      .api()
      .get(`/api/issues/${issueId}/tags/level?limit=abc`)
      .expect(400, { error: 'limit must be an integer' });
    const level = await t.api().get(`/api/issues/${issueId}/tags/level`).expect(200);
    expect(level.body.data.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBe(
      eventsOfIssue(issueId).length,
    );
  });

  it('answers stats for 90 days on a project that keeps events 1 day', async () => {
    const project = (await t.api().post('/api/projects').send({ name: 'Rollups Short' }).expect(201)).body.id;
    await t.api().patch(`/api/projects/${project}`).send({ retention_days: 1 }).expect(200);
    const timestamps = [3 * DAY, 2 * HOUR, 10 * 60_000].map((ago) => now - ago);
    const events = timestamps.map((timestamp) => ({
      projectId: project,
      group: 'short',
      eventId: randomUUID(),
      receivedAt: Date.now(),
      payload: { message: 'short-lived', timestamp: timestamp / 1000 },
      timestamp,
      environment: null,
      tags: new Map(),
    }));
    await digest.addBulk(events.map((event) => job(event, digestJobId(project, event.eventId))));
    await eventually(async () => (await storedCount([project])) === events.length);
    // Stored is not yet counted: the stats read the rollups, which the fold fills after the digest.
    await settleRollups(t.app);
    for (const period of ['90d', '14d', '24h'] as const) {
      const { body, at } = await statsOf(`/api/projects/${project}/stats`, period);
      expect(body.buckets).toEqual(expectedBuckets(timestamps, period, at));
    }
  });
});
