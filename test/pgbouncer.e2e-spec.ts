/**
 * The service behind PgBouncer in transaction pooling mode, where consecutive transactions of one
 * client connection may run on different server connections and nothing outlives a transaction:
 * session advisory locks, `SET`s, prepared statements and temporary tables would leak to, or be
 * missing for, whoever gets the server connection next. The test starts its own PostgreSQL and its
 * own PgBouncer (5 server connections for two apps of 20 each) on free loopback ports, and runs
 * everything through them: two instances creating and migrating a new database at once, ingest,
 * digest, dedupe, reads, an alert through the outbox, and a retention run that drops a partition.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { freePort } from '../bench/support';
import { MIGRATIONS } from '../src/schema/data-source-options';
import { prepareDatabase } from '../src/schema/migrate';
import { RetentionService } from '../src/retention/retention.service';
import { sendFixture } from './fixtures/fixtures';
import { startTestApp, TestApp } from './helpers/app';
import { Cleanup } from './helpers/cleanup';
import { PgBouncer, Postgres } from './helpers/postgres-servers';
import { backlogDrained, eventually, storedEvent } from './helpers/queues';
import { settleRollups } from './helpers/rollups';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

const DATABASE = 'error_tracker';
const SERVER_CONNECTIONS = 5;
const DAY = 86_400_000;

const hexOf = (uuid: string) => uuid.replace(/-/g, '');

interface Project {
  id: number;
  client_key: string;
}

describe('behind PgBouncer in transaction pooling mode', () => {
  const cleanup = new Cleanup();
  const tmp = mkdtempSync(join(tmpdir(), 'pgbouncer-e2e-'));
  let postgres: Postgres;
  let bouncer: PgBouncer;
  /** Straight to PostgreSQL, past PgBouncer: to see the server's side (locks, backends). */
  let direct: Client;
  /** Two replicas sharing the database and the queues: events sent to one may be digested by the other. */
  let apps: TestApp[] = [];
  let receiver: WebhookReceiver;
  const redisPrefix = `pgbouncer-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    cleanup.add('remove temporary folder', async () => rmSync(tmp, { recursive: true, force: true }));
    chmodSync(tmp, 0o755); // the postgres OS user must reach its folders inside
    postgres = new Postgres(join(tmp, 'postgres'), await freePort());
    mkdirSync(postgres.baseDir);
    await postgres.init();
    cleanup.add('stop PostgreSQL', async () => {
      if (await postgres.running()) await postgres.stop('fast').catch(() => postgres.stop('immediate'));
    });
    await postgres.start();
    bouncer = new PgBouncer(join(tmp, 'pgbouncer'), await freePort(), postgres, {
      poolSize: SERVER_CONNECTIONS,
    });
    cleanup.add('stop PgBouncer', () => bouncer.stop());
    await bouncer.start();
    direct = new Client({ connectionString: postgres.url('postgres') });
    await direct.connect();
    cleanup.add('close the direct connection', () => direct.end());
    receiver = await startWebhookReceiver();
    cleanup.add('stop the webhook receiver', () => receiver.close());
  }, 60_000);

  afterAll(() => cleanup.runAll());

  function startApp(): Promise<TestApp> {
    return startTestApp({
      DATABASE_URL: bouncer.url(DATABASE),
      REDIS_PREFIX: redisPrefix,
      ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
    }).then((app) => {
      cleanup.add('close an app', () => app.close());
      return app;
    });
  }

  async function serverCount(sql: string, parameters: unknown[] = []): Promise<number> {
    const { rows } = await direct.query<{ n: number }>(`SELECT (${sql})::int AS n`, parameters);
    return rows[0].n;
  }

  it('two instances starting at once create and migrate a new database through it, and both come up', async () => {
    const boot = async (): Promise<{ applied: string[]; app: TestApp }> => {
      const applied = await prepareDatabase(bouncer.url(DATABASE));
      return { applied, app: await startApp() };
    };
    const booted = await Promise.all([boot(), boot()]);
    apps = booted.map((instance) => instance.app);

    // One of them migrated, the other waited for it and found nothing left to do.
    const names = MIGRATIONS.map((migration) => migration.name);
    expect(booted.map((instance) => instance.applied).sort((a, b) => a.length - b.length)).toEqual([
      [],
      names,
    ]);
    const migrated = new Client({ connectionString: postgres.url(DATABASE) });
    await migrated.connect();
    try {
      const { rows } = await migrated.query<{ name: string }>('SELECT name FROM migrations ORDER BY id');
      expect(rows.map((row) => row.name)).toEqual(names);
    } finally {
      await migrated.end();
    }
    // A session-level lock would stay behind on whichever server connection took it.
    expect(await serverCount(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`)).toBe(0);
    for (const app of apps) await app.http().get('/health/ready').expect(200);
  });

  describe('the core pipeline', () => {
    let project: Project;
    let issueId: number;
    const firstId = hexOf(randomUUID());

    it('ingests an event on one instance and serves it, once, from the other', async () => {
      const [a, b] = apps;
      project = (await a.api().post('/api/projects').send({ name: 'Behind PgBouncer' }).expect(201))
        .body as Project;
      await sendFixture(a, project, firstId);
      const event = await storedEvent(b, firstId);
      issueId = event.issue_id;

      // The same event again, on both instances, after it was stored.
      await sendFixture(b, project, firstId);
      await sendFixture(a, project, firstId);
      const secondId = hexOf(randomUUID());
      await sendFixture(b, project, secondId);
      await storedEvent(a, secondId);
      await backlogDrained(a, b);
      await settleRollups(a.app);

      const issue = (await b.api().get(`/api/issues/${issueId}`).expect(200)).body;
      expect(issue).toMatchObject({
        id: issueId,
        type: 'TypeError',
        state: 'open',
        event_count: 2,
        user_count: 1,
      });
      const events = (await a.api().get(`/api/issues/${issueId}/events`).expect(200)).body.data as {
        id: string;
      }[];
      expect(events).toHaveLength(2);
    });

    it('answers stats and tags from the rollups the digest wrote', async () => {
      const [a, b] = apps;
      const stats = (await a.api().get(`/api/issues/${issueId}/stats?period=24h`).expect(200)).body as {
        buckets: { count: number }[];
      };
      expect(stats.buckets).toHaveLength(24);
      expect(stats.buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(2);
      const projectStats = (await b.api().get(`/api/projects/${project.id}/stats`).expect(200)).body as {
        buckets: { count: number }[];
      };
      expect(projectStats.buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(2);

      const tags = (await b.api().get(`/api/issues/${issueId}/tags`).expect(200)).body.data as {
        key: string;
        total: number;
        top: { value: string; count: number }[];
      }[];
      expect(tags.find((tag) => tag.key === 'release')).toMatchObject({
        total: 2,
        top: [{ value: 'app@1.2.3', count: 2 }],
      });
      expect(tags.find((tag) => tag.key === 'environment')).toMatchObject({ total: 2 });
      await a.api().get(`/api/issues/${issueId}/tags/release`).expect(200);
      await a.api().get(`/api/issues/${issueId}/tags/no-such-key`).expect(404);
    });

    it('pages issues with cursors read in one transaction and used in another', async () => {
      const [a, b] = apps;
      const messageId = hexOf(randomUUID());
      await sendFixture(b, project, messageId, 'message-event');
      const message = await storedEvent(a, messageId);
      const first = (await a.api().get(`/api/projects/${project.id}/issues?limit=1`).expect(200)).body;
      expect(first.data).toHaveLength(1);
      const second = (
        await b
          .api()
          .get(`/api/projects/${project.id}/issues?limit=1&cursor=${first.next_cursor}`)
          .expect(200)
      ).body;
      expect([...first.data, ...second.data].map((issue: { id: number }) => issue.id).sort()).toEqual(
        [issueId, message.issue_id].sort(),
      );
    });

    it('publishes the alert of a state change through the outbox', async () => {
      const [a, b] = apps;
      const channel = (
        await a
          .api()
          .post('/api/alert-channels')
          .send({
            name: 'PgBouncer hook',
            channel_type: 'webhook',
            config: { url: `${receiver.url}/unmute` },
          })
          .expect(201)
      ).body as { id: number };
      await a
        .api()
        .post(`/api/projects/${project.id}/alert-rules`)
        .send({ name: 'Unmuted', alert_type: 'unmute', channel_ids: [channel.id] })
        .expect(201);

      await b.api().patch(`/api/issues/${issueId}`).send({ state: 'muted' }).expect(200);
      await a
        .api()
        .patch(`/api/issues/${issueId}`)
        .send({ state: 'open' })
        .expect(200, /"state":"open"/);
      const delivered = await eventually(async () =>
        receiver.received.find((request) => request.body.alert_type === 'unmute'),
      );
      expect(delivered.body).toMatchObject({ alert_type: 'unmute', issue: { id: issueId, state: 'open' } });
      const history = await eventually(async () => {
        const rows = (await b.api().get(`/api/projects/${project.id}/alert-history`).expect(200)).body as {
          alert_type: string;
          status: string;
        }[];
        return rows.find((row) => row.status === 'sent') && rows;
      });
      expect(history).toEqual([
        expect.objectContaining({ alert_type: 'unmute', status: 'sent', issue_id: issueId }),
      ]);
    });

    it('shares 5 server connections among the apps’ pools', async () => {
      await Promise.all(
        Array.from({ length: 40 }, (_, n) =>
          apps[n % 2].api().get(`/api/projects/${project.id}/issues`).expect(200),
        ),
      );
      const clients = apps
        .map((app) => (app.app.get(DataSource).driver as unknown as { master: Pool }).master.totalCount)
        .reduce((sum, count) => sum + count, 0);
      expect(clients).toBeGreaterThan(SERVER_CONNECTIONS);
      expect(
        await serverCount(
          `SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`,
          [DATABASE],
        ),
      ).toBeLessThanOrEqual(SERVER_CONNECTIONS);
    });

    it('runs retention: partitions ahead are created, an expired day is dropped', async () => {
      const [a, b] = apps;
      const now = Date.now();
      const today = `events_p${new Date(now).toISOString().slice(0, 10).replace(/-/g, '')}`;
      const report = await a.app.get(RetentionService).run(new Date(now + 92 * DAY));
      expect(report.partitionsCreated).toBeGreaterThan(0);
      expect(report.partitionsDropped).toContain(today);
      expect(report.partitionsPostponed).toEqual([]);
      expect(report.issuesDeleted).toBe(2);
      await b.api().get(`/api/events/${firstId}`).expect(404);
      await b.api().get(`/api/issues/${issueId}`).expect(404);
    });
  });

  it('without a route to the `postgres` database, says that a missing database must be created first', async () => {
    const narrow = new PgBouncer(join(tmp, 'pgbouncer-narrow'), await freePort(), postgres, {
      databases: [DATABASE, 'not_created_yet'],
      poolSize: SERVER_CONNECTIONS,
    });
    cleanup.add('stop the second PgBouncer', () => narrow.stop());
    await narrow.start();
    await expect(prepareDatabase(narrow.url('not_created_yet'))).rejects.toThrow(
      /database "not_created_yet" does not exist.*create it/s,
    );
    expect(await serverCount(`SELECT count(*) FROM pg_database WHERE datname = 'not_created_yet'`)).toBe(0);
    // An existing database needs no maintenance connection.
    await expect(prepareDatabase(narrow.url(DATABASE))).resolves.toEqual([]);
  });
});
