/**
 * What check-ins may create: monitors per project and environments per monitor are capped
 * (CRON_MONITORS_PER_PROJECT, CRON_ENVIRONMENTS_PER_MONITOR). Past a cap a check-in creates nothing
 * and is counted as an outcome (category `monitor`); monitors made through the API are not capped.
 * Through the real ingest, digest queue and worker, PostgreSQL and Redis.
 */
import { randomUUID } from 'node:crypto';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';

interface Project {
  id: number;
  client_key: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');
const MONITORS_CAP = 3;
const ENVIRONMENTS_CAP = 2;
const CONFIG = { schedule: { type: 'crontab', value: '* * * * *' } };

describe('caps on what check-ins create', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      CRON_MONITORS_PER_PROJECT: String(MONITORS_CAP),
      CRON_ENVIRONMENTS_PER_MONITOR: String(ENVIRONMENTS_CAP),
    });
  });

  afterAll(() => t.close());

  async function createProject(): Promise<Project> {
    return (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `caps-${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
  }

  async function sendCheckIns(project: Project, items: object[]): Promise<void> {
    const body = [
      JSON.stringify({ dsn: `http://${hex(project.client_key)}@127.0.0.1:${t.port}/${project.id}` }),
      ...items.flatMap((payload) => [JSON.stringify({ type: 'check_in' }), JSON.stringify(payload)]),
    ].join('\n');
    await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('X-Sentry-Auth', `Sentry sentry_key=${hex(project.client_key)}, sentry_version=7`)
      .send(body)
      .expect(200);
  }

  async function monitorOutcomes(project: Project): Promise<Record<string, number>> {
    await t.app.get(OutcomeFolder).fold();
    const outcomes = await t.api().get(`/api/projects/${project.id}/outcomes`).expect(200);
    const totals: Record<string, number> = {};
    for (const row of outcomes.body.totals as {
      outcome: string;
      category: string;
      reason: string;
      quantity: number;
    }[]) {
      if (row.category === 'monitor') totals[`${row.outcome}:${row.reason}`] = row.quantity;
    }
    return totals;
  }

  async function slugs(project: Project): Promise<string[]> {
    const list = await t.api().get(`/api/projects/${project.id}/monitors`).expect(200);
    return (list.body.data as { slug: string }[]).map((monitor) => monitor.slug).sort();
  }

  it('creates monitors from check-ins up to the cap per project, then counts and drops the rest', async () => {
    const project = await createProject();
    const sent = Array.from({ length: MONITORS_CAP + 3 }, (_, i) => `job-${i}`);
    await sendCheckIns(
      project,
      sent.map((slug) => ({
        check_in_id: hex(randomUUID()),
        monitor_slug: slug,
        status: 'in_progress',
        monitor_config: CONFIG,
      })),
    );
    const totals = await eventually(async () => {
      const counted = await monitorOutcomes(project);
      return (counted['invalid:monitor_limit_exceeded'] ?? 0) >= 3 && counted;
    }, 60_000);
    expect(totals).toEqual({ 'invalid:monitor_limit_exceeded': 3 });
    const kept = await slugs(project);
    expect(kept).toHaveLength(MONITORS_CAP);

    // Check-ins of a monitor that exists still count, monitor_config and all.
    await sendCheckIns(project, [
      { check_in_id: hex(randomUUID()), monitor_slug: kept[0], status: 'ok', monitor_config: CONFIG },
    ]);
    await eventually(async () => {
      const page = await t.api().get(`/api/projects/${project.id}/monitors/${kept[0]}/check-ins`);
      return page.status === 200 && (page.body.data as unknown[]).length === 2;
    }, 30_000);

    // A member may still make monitors through the API: the cap is on what check-ins create.
    await t
      .api()
      .post(`/api/projects/${project.id}/monitors`)
      .send({ name: 'made by hand', schedule: { type: 'interval', value: 1, unit: 'day' } })
      .expect(201);
    expect(await slugs(project)).toHaveLength(MONITORS_CAP + 1);
    expect(await monitorOutcomes(project)).toEqual({ 'invalid:monitor_limit_exceeded': 3 });
  });

  it('keeps up to the cap of environments per monitor, then counts and drops check-ins of new ones', async () => {
    const project = await createProject();
    const environments = Array.from({ length: ENVIRONMENTS_CAP + 2 }, (_, i) => `env-${i}`);
    await sendCheckIns(project, [
      { check_in_id: hex(randomUUID()), monitor_slug: 'nightly', status: 'ok', monitor_config: CONFIG },
    ]);
    await eventually(
      async () => (await t.api().get(`/api/projects/${project.id}/monitors/nightly`)).status === 200,
      30_000,
    );
    await sendCheckIns(
      project,
      environments.map((environment) => ({
        check_in_id: hex(randomUUID()),
        monitor_slug: 'nightly',
        status: 'ok',
        environment,
      })),
    );
    // `production` (the first check-in) holds one place: one of the four new environments gets in.
    const totals = await eventually(async () => {
      const counted = await monitorOutcomes(project);
      return (counted['invalid:monitor_environment_limit_exceeded'] ?? 0) >= 3 && counted;
    }, 60_000);
    expect(totals).toEqual({ 'invalid:monitor_environment_limit_exceeded': 3 });
    const monitor = await t.api().get(`/api/projects/${project.id}/monitors/nightly`).expect(200);
    const kept = (monitor.body.environments as { environment: string }[]).map((env) => env.environment);
    expect(kept).toHaveLength(ENVIRONMENTS_CAP);
    expect(kept).toContain('production');

    // An environment that exists takes check-ins as before.
    await sendCheckIns(project, [{ check_in_id: hex(randomUUID()), monitor_slug: 'nightly', status: 'error' }]);
    await eventually(async () => {
      const page = await t.api().get(`/api/projects/${project.id}/monitors/nightly/check-ins`);
      return page.status === 200 && (page.body.data as { status: string }[]).some((row) => row.status === 'error');
    }, 30_000);
    expect(await monitorOutcomes(project)).toEqual({ 'invalid:monitor_environment_limit_exceeded': 3 });
  });
});
