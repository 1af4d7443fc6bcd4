import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { dataSourceOptions, MIGRATIONS } from '../src/schema/data-source-options';
import { prepareDatabase } from '../src/schema/migrate';
import { QueuedEvent, digestJobId, DigestJobName } from '../src/digest/digest-job';
import { normaliseEvent } from '../src/digest/event-normaliser';
import type { NormalisedEvent } from '../src/events/normalised-event';
import { groupEvent } from '../src/digest/grouping';
import { startTestApp, TestApp } from './helpers/app';
import { eventually, openQueue } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BASE_URL = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MIGRATION = 'PartitionedEventsAndRollups1795400000000';
/** The migrations of the version before partitioning, and the names of this one and those after it. */
const BEFORE = MIGRATIONS.slice(
  0,
  MIGRATIONS.findIndex((migration) => migration.name === MIGRATION),
);
const FROM_PARTITIONING = MIGRATIONS.slice(BEFORE.length).map((migration) => migration.name);

/** An event as the previous version stored it, and what it must count as in the rollups. */
interface LegacyEvent {
  projectId: number;
  issueKey: string;
  id: string;
  raw: Record<string, unknown>;
  receivedAt: number;
  event: NormalisedEvent;
  payload: Record<string, unknown>;
  tags: Map<string, string>;
  issueId?: number;
}

/** The columns, indexes, constraints and functions of the public schema. */
async function schemaOf(db: DataSource): Promise<Record<string, unknown>> {
  return {
    columns: await db.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default
         FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`,
    ),
    indexes: await db.query(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`,
    ),
    constraints: await db.query(
      `SELECT conrelid::regclass::text AS table, conname, pg_get_constraintdef(oid) AS def
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`,
    ),
    functions: await db.query(
      `SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1`,
    ),
    tables: await db.query(
      `SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') ORDER BY 1`,
    ),
  };
}

/** What GET /api/events/:id answered before the migration: the payload, then the row's columns. */
function servedBefore(event: LegacyEvent): Record<string, unknown> {
  const user = event.event.user;
  return {
    ...event.payload,
    id: event.id,
    issue_id: event.issueId,
    timestamp: event.event.timestamp,
    received_at: new Date(event.receivedAt).toISOString(),
    level: event.event.level,
    environment: event.event.environment,
    release: event.event.release,
    // The user as sent, every field (older versions served only the id and e-mail).
    user: user ? { ...user, id: user.id ?? null, email: user.email ?? null } : null,
    project_id: event.projectId,
  };
}

describe('partitioning an existing events table', () => {
  const name = `error_tracker_migration_${process.pid}_${randomUUID().slice(0, 8)}`;
  const url = (() => {
    const parsed = new URL(BASE_URL);
    parsed.pathname = `/${name}`;
    return parsed.toString();
  })();
  const now = Date.now();
  const tag = randomUUID().slice(0, 6);
  let admin: Client;
  let legacy: LegacyEvent[];
  let schemaBefore: Record<string, unknown>;
  let t: TestApp | undefined;
  let db: DataSource;
  let digest: Queue;
  const issueIds = new Map<string, number>();
  let projects: { shop: number; admin: number };

  async function withDataSource<T>(
    migrations: typeof MIGRATIONS,
    work: (ds: DataSource) => Promise<T>,
  ): Promise<T> {
    const ds = new DataSource({ ...dataSourceOptions(url), migrations, extra: { max: 2 } });
    await ds.initialize();
    try {
      return await work(ds);
    } finally {
      await ds.destroy();
    }
  }

  /** A mixed set of events of three issues in two projects, received from 1 hour to 60 days ago. */
  function buildLegacy(shop: number, adminProject: number): LegacyEvent[] {
    const events: LegacyEvent[] = [];
    const add = (projectId: number, issueKey: string, raw: Record<string, unknown>, receivedAt: number) => {
      const id = randomUUID();
      const event = normaliseEvent(raw, { eventId: id, receivedAt });
      const group = groupEvent(event);
      const payload = {
        ...event,
        title: group.title,
        culprit: group.culprit,
        grouping: { key: group.key, components: group.components },
      };
      const tags = new Map<string, string>();
      if (event.environment) tags.set('environment', event.environment);
      if (event.release) tags.set('release', event.release);
      tags.set('level', event.level);
      const user = raw.user as Record<string, string> | undefined;
      const userTag = user?.id
        ? `id:${user.id}`
        : user?.email
          ? `email:${user.email}`
          : user?.ip_address
            ? `ip:${user.ip_address}`
            : user?.username
              ? `username:${user.username}`
              : null;
      if (userTag) tags.set('user', userTag);
      if (user?.email) tags.set('user.email', user.email);
      const request = raw.request as { url?: string } | undefined;
      if (request?.url) tags.set('url', request.url.split(/[?#]/)[0]);
      const browser = (raw.contexts as { browser?: { name: string; version?: string } } | undefined)?.browser;
      if (browser) {
        tags.set('browser', browser.version ? `${browser.name} ${browser.version}` : browser.name);
        tags.set('browser.name', browser.name);
      }
      for (const [key, value] of Object.entries((raw.tags as Record<string, string>) ?? {}))
        tags.set(key, value);
      events.push({ projectId, issueKey, id, raw, receivedAt, event, payload, tags });
    };

    const crash = (extra: Record<string, unknown>) => ({
      platform: 'node',
      exception: {
        values: [
          {
            type: 'LegacyError',
            value: 'stock went negative',
            stacktrace: {
              frames: [{ filename: '/srv/stock.js', function: 'reserve', lineno: 12, in_app: true }],
            },
          },
        ],
      },
      ...extra,
    });
    const arrivals = [1 * HOUR, 5 * HOUR, 26 * HOUR, 3 * DAY, 10 * DAY, 13 * DAY + 5 * HOUR, 40 * DAY];
    arrivals.forEach((ago, i) => {
      const receivedAt = now - ago;
      add(
        shop,
        'crash',
        crash({
          timestamp: (receivedAt - 2_000) / 1000,
          environment: i % 2 === 0 ? 'production' : 'staging',
          release: i < 4 ? 'shop@2.0.0' : 'shop@1.9.0',
          level: i === 3 ? 'fatal' : 'error',
          user: [
            { id: 'alice', email: 'alice@example.com' },
            { email: 'bob@example.com' },
            { ip_address: '192.0.2.7' },
            { username: 'carol' },
            { id: 'alice' },
            undefined,
            { id: 'dave', email: 'dave@example.com' },
          ][i],
          request: { url: `https://shop.example.com/basket?id=${i}`, method: 'POST' },
          contexts: i % 3 === 0 ? { browser: { name: 'Firefox', version: '128.0' } } : {},
          tags: { region: i % 2 === 0 ? 'eu' : 'us', [`legacy_${tag}`]: 'yes' },
        }),
        receivedAt,
      );
    });
    for (const [i, ago] of [2 * HOUR, 4 * DAY, 20 * DAY].entries()) {
      const receivedAt = now - ago;
      add(
        adminProject,
        'admin',
        {
          message: 'admin export failed',
          level: 'warning',
          timestamp: new Date(receivedAt - 1_000).toISOString(),
          user: { id: `op${i}` },
        },
        receivedAt,
      );
    }
    // Enough events of one issue for the backfill to go through several pages.
    for (let i = 0; i < 2_500; i++) {
      const receivedAt = now - 2 * HOUR - (i % 1_440) * HOUR;
      add(
        shop,
        'bulk',
        {
          message: 'bulk legacy message',
          level: i % 7 === 0 ? 'info' : 'warning',
          environment: ['production', 'staging', undefined][i % 3],
          timestamp: (receivedAt - 5_000) / 1000,
          user:
            i % 4 === 3
              ? undefined
              : i % 4 === 2
                ? { ip_address: `198.51.100.${i % 23}` }
                : { id: `bulk-${i % 37}` },
          tags: { shard: `s${i % 5}` },
        },
        receivedAt,
      );
    }
    return events;
  }

  beforeAll(async () => {
    admin = new Client({ connectionString: BASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);

    await withDataSource(BEFORE, async (old) => {
      const applied = await old.runMigrations({ transaction: 'each' });
      expect(applied.map((migration) => migration.name)).not.toContain(MIGRATION);
      const created: { id: number }[] = await old.query(
        `INSERT INTO projects (name, slug, client_key, next_issue_number)
         VALUES ('Legacy Shop', 'legacy-shop', $1, 0), ('Legacy Admin', 'legacy-admin', $2, 0) RETURNING id`,
        [randomUUID(), randomUUID()],
      );
      projects = { shop: created[0].id, admin: created[1].id };
      legacy = buildLegacy(projects.shop, projects.admin);

      // One issue per group, numbered per project, as the previous digest left them.
      const byIssue = new Map<string, LegacyEvent[]>();
      for (const event of legacy)
        byIssue.set(event.issueKey, [...(byIssue.get(event.issueKey) ?? []), event]);
      const numbers = new Map<number, number>();
      for (const [key, events] of byIssue) {
        const first = events[0];
        const group = groupEvent(first.event);
        expect(new Set(events.map((event) => groupEvent(event.event).key))).toEqual(new Set([group.key]));
        const number = (numbers.get(first.projectId) ?? 0) + 1;
        numbers.set(first.projectId, number);
        const times = events.map((event) => Date.parse(event.event.timestamp));
        const [{ id }] = await old.query(
          `INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state, event_count,
                               first_seen, last_seen)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', $8, $9, $10) RETURNING id`,
          [
            first.projectId,
            group.key,
            number,
            group.type,
            group.message,
            group.culprit,
            first.event.level,
            events.length,
            new Date(Math.min(...times)),
            new Date(Math.max(...times)),
          ],
        );
        issueIds.set(key, id);
        for (const event of events) event.issueId = id;
      }
      for (const [projectId, number] of numbers) {
        await old.query('UPDATE projects SET next_issue_number = $2 WHERE id = $1', [projectId, number]);
      }
      await old.query(
        `INSERT INTO events (project_id, id, issue_id, timestamp, received_at, environment, release, level, "user", payload)
         SELECT e.project_id, e.id, e.issue_id, e.timestamp, e.received_at, e.environment, e.release, e.level,
                e.user_json::jsonb, e.payload::jsonb
           FROM unnest($1::int[], $2::uuid[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::text[], $7::text[],
                       $8::text[], $9::text[], $10::text[])
             AS e(project_id, id, issue_id, timestamp, received_at, environment, release, level, user_json, payload)`,
        [
          legacy.map((e) => e.projectId),
          legacy.map((e) => e.id),
          legacy.map((e) => e.issueId),
          legacy.map((e) => e.event.timestamp),
          legacy.map((e) => new Date(e.receivedAt)),
          legacy.map((e) => e.event.environment),
          legacy.map((e) => e.event.release),
          legacy.map((e) => e.event.level),
          legacy.map((e) => (e.event.user ? JSON.stringify(e.event.user) : null)),
          legacy.map((e) => JSON.stringify(e.payload)),
        ],
      );
      schemaBefore = await schemaOf(old);
    });

    // The remaining migration, the way the service applies it at start-up.
    expect(await prepareDatabase(url)).toEqual(FROM_PARTITIONING);

    t = await startTestApp({ DATABASE_URL: url });
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
  }, 60_000);

  afterAll(async () => {
    await digest?.close();
    await t?.close();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  const ofIssue = (key: string) => legacy.filter((event) => event.issueKey === key);

  it('keeps the old table as the partition of everything before tomorrow', async () => {
    const [events] = await db.query(`SELECT relkind FROM pg_class WHERE oid = 'events'::regclass`);
    expect(events.relkind).toBe('p');
    const [partition] = await db.query(
      `SELECT c.relispartition, i.inhparent::regclass::text AS parent,
              (regexp_match(pg_get_expr(c.relpartbound, c.oid), $$^FOR VALUES FROM \\(MINVALUE\\) TO \\('(.+)'\\)$$))[1]::timestamptz AS upper
         FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
        WHERE c.oid = 'events_legacy'::regclass`,
    );
    expect(partition).toEqual({
      relispartition: true,
      parent: 'events',
      upper: new Date(Math.floor(now / DAY) * DAY + DAY),
    });
    expect(await db.query('SELECT count(*)::int AS n FROM ONLY events_legacy')).toEqual([
      { n: legacy.length },
    ]);
    // The payload carries the user now: the column is gone.
    const columns = await db.query(
      `SELECT attname FROM pg_attribute WHERE attrelid = 'events'::regclass AND attnum > 0 AND NOT attisdropped`,
    );
    expect(columns.map((column: { attname: string }) => column.attname)).not.toContain('user');
    // Days from tomorrow on have partitions of their own.
    const tomorrow = new Date(Math.floor(now / DAY) * DAY + DAY).toISOString().slice(0, 10).replace(/-/g, '');
    expect(await db.query('SELECT to_regclass($1)::text AS name', [`events_p${tomorrow}`])).toEqual([
      { name: `events_p${tomorrow}` },
    ]);
  });

  it('finds an event by id through an index on every partition, the kept one included', async () => {
    // GET /api/events/:id knows the id only; without such an index it reads the whole partition.
    const partitions: { partition: string; by_id: string[] }[] = await db.query(
      `SELECT c.relname AS partition,
              ARRAY(SELECT x.indexrelid::regclass::text FROM pg_index x
                     WHERE x.indrelid = c.oid AND x.indisvalid
                       AND x.indkey[0] = (SELECT attnum FROM pg_attribute WHERE attrelid = c.oid AND attname = 'id')
                     ORDER BY 1) AS by_id
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass ORDER BY 1`,
    );
    expect(partitions.length).toBeGreaterThan(1);
    expect(partitions.filter((row) => row.by_id.length === 0).map((row) => row.partition)).toEqual([]);
  });

  it('serves every old event as before', async () => {
    if (!t) throw new Error('app not started');
    const sample = [
      ...legacy.filter((event) => event.issueKey !== 'bulk'),
      ...ofIssue('bulk').filter((_, i) => i % 97 === 0),
    ];
    for (const event of sample) {
      const response = await t.api().get(`/api/events/${event.id}`).expect(200);
      // The neighbours within the issue came later; the rest is served as before.
      const { previous_event_id: previous, next_event_id: next, ...served } = response.body;
      expect([typeof previous, typeof next].every((kind) => kind === 'string' || kind === 'object')).toBe(
        true,
      );
      expect(served).toEqual(servedBefore(event));
    }
    // And every one of them is there, in its issue's event list.
    for (const key of ['crash', 'admin']) {
      const list = await t
        .api()
        .get(`/api/issues/${issueIds.get(key)}/events`)
        .expect(200);
      const expected = ofIssue(key)
        .sort((a, b) => Date.parse(b.event.timestamp) - Date.parse(a.event.timestamp))
        .map((event) => ({
          id: event.id,
          user: event.event.user
            ? { id: event.event.user.id ?? null, email: event.event.user.email ?? null }
            : null,
        }));
      expect(
        list.body.data.map((row: { id: string; user: unknown }) => ({ id: row.id, user: row.user })),
      ).toEqual(expected);
    }
    const [{ n }] = await db.query('SELECT count(*)::int AS n FROM events WHERE issue_id = $1', [
      issueIds.get('bulk'),
    ]);
    expect(n).toBe(ofIssue('bulk').length);
  });

  it('backfills hourly counts, tags and user counts from the old events', async () => {
    if (!t) throw new Error('app not started');
    const expectedHours = new Map<string, number>();
    const expectedProjectHours = new Map<string, number>();
    for (const event of legacy) {
      const hour = Math.floor(Date.parse(event.event.timestamp) / HOUR) * HOUR;
      const env = event.event.environment ?? '';
      const issueKey = `${event.issueId}|${hour}|${env}`;
      const projectKey = `${event.projectId}|${hour}|${env}`;
      expectedHours.set(issueKey, (expectedHours.get(issueKey) ?? 0) + 1);
      expectedProjectHours.set(projectKey, (expectedProjectHours.get(projectKey) ?? 0) + 1);
    }
    const hours: { issue_id: number; hour: Date; environment: string; count: number }[] = await db.query(
      'SELECT issue_id, hour, environment, count FROM issue_hourly',
    );
    expect(
      new Map(hours.map((row) => [`${row.issue_id}|${row.hour.getTime()}|${row.environment}`, row.count])),
    ).toEqual(expectedHours);
    const projectHours: { project_id: number; hour: Date; environment: string; count: number }[] =
      await db.query('SELECT project_id, hour, environment, count FROM project_hourly');
    expect(
      new Map(
        projectHours.map((row) => [`${row.project_id}|${row.hour.getTime()}|${row.environment}`, row.count]),
      ),
    ).toEqual(expectedProjectHours);

    for (const [key, issueId] of issueIds) {
      const events = ofIssue(key);
      const values = new Map<string, Map<string, number>>();
      for (const event of events) {
        for (const [tagKey, value] of event.tags) {
          const perKey = values.get(tagKey) ?? new Map<string, number>();
          values.set(tagKey, perKey);
          perKey.set(value, (perKey.get(value) ?? 0) + 1);
        }
      }
      const stored: { key: string; value: string; count: number }[] = await db.query(
        'SELECT key, value, count FROM issue_tag_values WHERE issue_id = $1',
        [issueId],
      );
      const storedMap = new Map<string, Map<string, number>>();
      for (const row of stored) {
        storedMap.set(row.key, (storedMap.get(row.key) ?? new Map()).set(row.value, row.count));
      }
      expect(storedMap).toEqual(values);
      const keys: { key: string; total: number; distinct_values: number }[] = await db.query(
        'SELECT key, total, distinct_values FROM issue_tag_keys WHERE issue_id = $1 ORDER BY key',
        [issueId],
      );
      expect(keys).toEqual(
        [...values]
          .map(([tagKey, perKey]) => ({
            key: tagKey,
            total: [...perKey.values()].reduce((sum, n) => sum + n, 0),
            distinct_values: perKey.size,
          }))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
      );

      const issue = await t.api().get(`/api/issues/${issueId}`).expect(200);
      const users = new Set(
        events.map((event) => event.tags.get('user')).filter((user) => user !== undefined),
      );
      expect({ key, event_count: issue.body.event_count, user_count: issue.body.user_count }).toEqual({
        key,
        event_count: events.length,
        user_count: users.size,
      });

      const stats = await t.api().get(`/api/issues/${issueId}/stats?period=90d`).expect(200);
      expect(
        stats.body.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0),
      ).toBe(events.length);
      const week = await t
        .api()
        .get(`/api/issues/${issueId}/stats?period=14d&environment=production`)
        .expect(200);
      const from = Math.floor(Date.now() / DAY) * DAY - 13 * DAY;
      expect(
        week.body.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0),
      ).toBe(
        events.filter(
          (event) => event.event.environment === 'production' && Date.parse(event.event.timestamp) >= from,
        ).length,
      );
    }
    const tags = await t
      .api()
      .get(`/api/issues/${issueIds.get('crash')}/tags`)
      .expect(200);
    expect(tags.body.data.find((entry: { key: string }) => entry.key === 'browser')).toEqual({
      key: 'browser',
      total: 3,
      distinct: 1,
      top: [{ value: 'Firefox 128.0', count: 3 }],
    });
  });

  it('does not store again an old event that is sent again', async () => {
    if (!t) throw new Error('app not started');
    const crash = issueIds.get('crash') as number;
    const before = (await t.api().get(`/api/issues/${crash}`).expect(200)).body;
    const statsBefore = (await t.api().get(`/api/issues/${crash}/stats?period=90d`).expect(200)).body;
    // Received an hour ago (within the look-back) and ten days ago (outside it).
    const resent = ofIssue('crash').filter((event) => [1 * HOUR, 10 * DAY].includes(now - event.receivedAt));
    expect(resent).toHaveLength(2);
    const fresh = randomUUID();
    const tomorrow = randomUUID();
    const jobs: QueuedEvent[] = [
      ...resent.map((event) => ({
        projectId: event.projectId,
        eventId: event.id,
        receivedAt: Date.now(),
        payload: JSON.stringify(event.raw),
      })),
      {
        projectId: projects.shop,
        eventId: fresh,
        receivedAt: Date.now(),
        payload: JSON.stringify(resent[0].raw),
      },
      {
        projectId: projects.shop,
        eventId: tomorrow,
        receivedAt: Math.floor(Date.now() / DAY) * DAY + DAY + HOUR,
        payload: JSON.stringify({ ...resent[0].raw, timestamp: Date.now() / 1000 }),
      },
    ];
    await digest.addBulk(
      jobs.map((data) => ({
        name: DigestJobName.Event,
        data,
        opts: { jobId: digestJobId(data.projectId, data.eventId), removeOnComplete: true },
      })),
    );
    await eventually(async () => {
      const counts = await digest.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
      return Object.values(counts).every((n) => n === 0);
    });
    await settleRollups(t.app);

    const rows: { id: string; part: string }[] = await db.query(
      'SELECT id, tableoid::regclass::text AS part FROM events WHERE id = ANY($1) ORDER BY received_at',
      [[...resent.map((event) => event.id), fresh, tomorrow]],
    );
    const tomorrowPartition = `events_p${new Date(Math.floor(Date.now() / DAY) * DAY + DAY).toISOString().slice(0, 10).replace(/-/g, '')}`;
    expect(rows).toEqual([
      { id: resent.find((event) => now - event.receivedAt === 10 * DAY)?.id, part: 'events_legacy' },
      { id: resent.find((event) => now - event.receivedAt === HOUR)?.id, part: 'events_legacy' },
      { id: fresh, part: 'events_legacy' },
      { id: tomorrow, part: tomorrowPartition },
    ]);
    const after = (await t.api().get(`/api/issues/${crash}`).expect(200)).body;
    expect(after.event_count).toBe(before.event_count + 2);
    const statsAfter = (await t.api().get(`/api/issues/${crash}/stats?period=90d`).expect(200)).body;
    const total = (stats: { buckets: { count: number }[] }) =>
      stats.buckets.reduce((sum, bucket) => sum + bucket.count, 0);
    expect(total(statsAfter)).toBe(total(statsBefore) + 2);
  });

  describe('reverted', () => {
    let restored: {
      id: string;
      project_id: number;
      user: unknown;
      payload: Record<string, unknown>;
      timestamp: Date;
    }[];

    beforeAll(async () => {
      await digest.close();
      await t?.close();
      t = undefined;
      await withDataSource(MIGRATIONS, async (ds) => {
        for (let undone = 0; undone < FROM_PARTITIONING.length; undone++) {
          await ds.undoLastMigration({ transaction: 'each' });
        }
        restored = await ds.query('SELECT id, project_id, "user", payload, timestamp FROM events');
      });
    }, 60_000);

    it('brings every row back into one unpartitioned table', async () => {
      await withDataSource(BEFORE, async (ds) => {
        expect(await ds.query(`SELECT relkind FROM pg_class WHERE oid = 'events'::regclass`)).toEqual([
          { relkind: 'r' },
        ]);
        expect(
          await ds.query(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'events'::regclass`),
        ).toEqual([{ n: 0 }]);
        expect(
          await ds.query(
            `SELECT to_regclass('events_legacy')::text AS t, to_regclass('issue_hourly')::text AS h`,
          ),
        ).toEqual([{ t: null, h: null }]);
        expect(await ds.showMigrations()).toBe(false);
      });
      // The old rows and the two stored after the migration, once each, with their user.
      expect(restored).toHaveLength(legacy.length + 2);
      expect(new Set(restored.map((row) => row.id)).size).toBe(restored.length);
      const byId = new Map(restored.map((row) => [row.id, row]));
      for (const event of legacy) {
        expect({ id: event.id, user: byId.get(event.id)?.user }).toEqual({
          id: event.id,
          user: event.event.user,
        });
      }
    });

    it('restores the payloads as the previous version stored them', async () => {
      const byId = new Map(restored.map((row) => [row.id, row]));
      // Described without the ids themselves, so that one difference of every row is listed once.
      const differences = new Set<string>();
      const describe = (value: unknown) =>
        String(JSON.stringify(value))
          .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
          .replace(/[0-9a-f]{32}/g, '<uuid without dashes>')
          .slice(0, 60);
      for (const event of legacy) {
        const before = event.payload as Record<string, unknown>;
        const after = byId.get(event.id)?.payload ?? {};
        for (const key of new Set([...Object.keys(after), ...Object.keys(before)])) {
          if (!isDeepStrictEqual(after[key], before[key])) {
            differences.add(`old rows: ${key} ${describe(before[key])} became ${describe(after[key])}`);
          }
        }
      }
      // Rows stored after the migration have the previous layout again: event_id and timestamp included.
      for (const row of restored.filter((r) => !legacy.some((event) => event.id === r.id))) {
        if (row.payload.event_id !== row.id)
          differences.add(`new rows: event_id ${describe(row.payload.event_id)}`);
        if (row.payload.timestamp !== row.timestamp.toISOString()) {
          differences.add(`new rows: timestamp ${describe(row.payload.timestamp)}`);
        }
      }
      expect([...differences]).toEqual([]);
    });

    it('leaves the schema of the previous version', async () => {
      await withDataSource(BEFORE, async (ds) => {
        expect(await schemaOf(ds)).toEqual(schemaBefore);
      });
    });

    it('can be migrated again', async () => {
      await expect(prepareDatabase(url)).resolves.toEqual(FROM_PARTITIONING);
      await withDataSource(MIGRATIONS, async (ds) => {
        expect(await ds.query(`SELECT relkind FROM pg_class WHERE oid = 'events'::regclass`)).toEqual([
          { relkind: 'p' },
        ]);
        expect(await ds.query('SELECT count(*)::int AS n FROM events')).toEqual([{ n: legacy.length + 2 }]);
      });
    });
  });
});
