import { Job, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { queuePrefix } from '../src/jobs/queue-layout';
import { redisOptions } from '../src/redis/redis-client';
import { UptimeClock } from '../src/monitors/uptime/uptime-clock';
import { UptimeJobName } from '../src/monitors/uptime/uptime-jobs';
import { UptimeScheduler } from '../src/monitors/uptime/uptime-scheduler.service';
import { UptimeProcessor } from '../src/monitors/uptime/uptime.processor';
import { startTestApp, TestApp } from './helpers/app';
import { createProject } from './helpers/attachments';
import { expectStatus } from './helpers/members';
import { ownTestDatabase } from './helpers/own-database';
import { eventually } from './helpers/queues';
import { startUptimeSites, UptimeSites } from './helpers/uptime-sites';

const DAY_MS = 86_400_000;
/** Ahead of the real time, on a day boundary. */
const T0 = Math.ceil(Date.now() / DAY_MS) * DAY_MS + 700 * DAY_MS;
const MONITORS = 40;

/**
 * Three instances (one with the API, two workers only) share the database and the queues, each
 * ticking every second, as a scaled-out installation does: every due check must run once.
 */
describe('uptime scheduling across workers', () => {
  let apps: TestApp[];
  let db: DataSource;
  let sites: UptimeSites;
  let database: { url: string; drop: () => Promise<void> };
  let now = T0;
  const monitorIds: number[] = [];

  beforeAll(async () => {
    sites = await startUptimeSites();
    // Apps on a clock of their own claim whatever is due by it: they get a database of their own.
    database = await ownTestDatabase('uptime_scheduling');
    const shared = {
      DATABASE_URL: database.url,
      REDIS_PREFIX: `test-uptime-${randomUUID().slice(0, 8)}`,
      UPTIME_ALLOW_PRIVATE_NETWORKS: 'true',
      UPTIME_TICK_MS: '1000',
    };
    apps = [
      await startTestApp(shared),
      await startTestApp({ ...shared, APP_ROLE: 'worker' }),
      await startTestApp({ ...shared, APP_ROLE: 'worker' }),
    ];
    for (const app of apps) app.app.get(UptimeClock).now = () => new Date(now);
    db = apps[0].app.get(DataSource);
    const api = apps[0];
    const projectId = (await createProject(api, 'uptime-scale')).id;
    for (let i = 0; i < MONITORS; i++) {
      const created = await expectStatus(
        api
          .api()
          .post(`/api/projects/${projectId}/uptime-monitors`)
          .send({ name: `Site ${i}`, url: `${sites.url}/ok/${i}` }),
        201,
      );
      monitorIds.push(created.body.id);
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await sites.close();
    await database.drop();
  });

  /** Due times recorded per monitor, as ISO strings. */
  async function recordedSlots(): Promise<Map<number, string[]>> {
    const rows: { monitor_id: number; due_at: Date }[] = await db.query(
      'SELECT monitor_id, due_at FROM uptime_checks WHERE monitor_id = ANY($1::int[]) ORDER BY due_at',
      [monitorIds],
    );
    const slots = new Map<number, string[]>(monitorIds.map((id) => [id, []]));
    for (const row of rows) slots.get(row.monitor_id)!.push(row.due_at.toISOString());
    return slots;
  }

  async function untilEachHas(count: number): Promise<Map<number, string[]>> {
    return eventually(async () => {
      const slots = await recordedSlots();
      return [...slots.values()].every((list) => list.length >= count) ? slots : undefined;
    }, 60_000);
  }

  const requestsPerMonitor = () =>
    monitorIds.map((_, i) => sites.requests.filter((entry) => entry.path === `/ok/${i}`).length);

  it('runs each due check exactly once, interval after interval, whatever the number of ticks', async () => {
    for (let round = 0; round < 3; round++) {
      now = T0 + round * 60_000;
      // Every instance ticks at once, on top of their own schedules: claims must not overlap.
      await Promise.all(apps.map((app) => app.app.get(UptimeScheduler).tick()));
      await untilEachHas(round + 1);
    }
    const expected = [0, 1, 2].map((round) => new Date(T0 + round * 60_000).toISOString());
    const slots = await recordedSlots();
    for (const id of monitorIds) expect({ id, slots: slots.get(id) }).toEqual({ id, slots: expected });
    expect(requestsPerMonitor()).toEqual(monitorIds.map(() => 3));
    const projectId = await projectOf(monitorIds[0]);
    const views = await expectStatus(apps[0].api().get(`/api/projects/${projectId}/uptime-monitors`), 200);
    expect(views.body.data.map((view: { status: string }) => view.status)).toEqual(
      monitorIds.map(() => 'up'),
    );
  });

  it('runs the checks a killed worker held, once', async () => {
    const before = requestsPerMonitor();
    const processors = apps.map((app) => app.app.get(UptimeProcessor));
    await Promise.all(processors.map((processor) => processor.worker.pause()));
    const taken = new Set<string>();
    // A worker that takes checks and dies with them: it never answers, and its locks are not renewed.
    const doomed = new Worker(
      QueueName.Uptime,
      async (job: Job) => {
        if (job.name === UptimeJobName.Check) taken.add(String(job.id));
        await new Promise(() => undefined);
      },
      {
        connection: redisOptions(apps[0].config.REDIS_URL),
        prefix: queuePrefix(apps[0].config, QueueName.Uptime),
        concurrency: MONITORS + 10,
        lockDuration: 2_000,
      },
    );
    try {
      now = T0 + 3 * 60_000;
      await apps[0].app.get(UptimeScheduler).tick();
      await eventually(async () => taken.size === MONITORS, 30_000);
      await doomed.close(true);
    } finally {
      await doomed.close(true).catch(() => undefined);
    }
    for (const processor of processors) processor.worker.resume();
    const slots = await untilEachHas(4);
    const expected = [0, 1, 2, 3].map((round) => new Date(T0 + round * 60_000).toISOString());
    for (const id of monitorIds) expect({ id, slots: slots.get(id) }).toEqual({ id, slots: expected });
    expect(requestsPerMonitor()).toEqual(before.map((count) => count + 1));
  });

  it('after an outage runs the latest missed check once, not one per missed interval', async () => {
    now = T0 + 60 * 60_000 + 30_000;
    await apps[1].app.get(UptimeScheduler).tick();
    const slots = await untilEachHas(5);
    for (const id of monitorIds) {
      expect(slots.get(id)).toHaveLength(5);
      expect(slots.get(id)!.at(-1)).toBe(new Date(T0 + 60 * 60_000).toISOString());
    }
    const next: { next_due_at: Date }[] = await db.query(
      'SELECT DISTINCT next_due_at FROM uptime_monitors WHERE id = ANY($1::int[])',
      [monitorIds],
    );
    expect(next.map((row) => row.next_due_at.toISOString())).toEqual([
      new Date(T0 + 61 * 60_000).toISOString(),
    ]);
  });

  async function projectOf(monitorId: number): Promise<number> {
    const rows: { project_id: number }[] = await db.query(
      'SELECT project_id FROM uptime_monitors WHERE id = $1',
      [monitorId],
    );
    return rows[0].project_id;
  }
});
