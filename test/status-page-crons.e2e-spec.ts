/**
 * Cron monitors on the public status page: chosen by id (another project's monitor is refused),
 * shown as down while an environment failed, each day with the share of its finished runs that
 * were ok, from check-ins sent to the real DSN check-in URL and stored by the worker.
 */
import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';

interface Project {
  id: number;
  client_key: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');

describe('status page with cron monitors', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('shows a chosen cron monitor with its state and the daily share of ok runs', async () => {
    const project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Cron status ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    const monitor = (
      await t
        .api()
        .post(`/api/projects/${project.id}/monitors`)
        .send({ name: 'Nightly export', schedule: { type: 'interval', value: 1, unit: 'hour' } })
        .expect(201)
    ).body as { id: number; slug: string };
    const checkIn = (status: string) =>
      t
        .http()
        .get(`/api/${project.id}/cron/${monitor.slug}/${hex(project.client_key)}/`)
        .query({ status, check_in_id: randomUUID() })
        .expect(202);
    const dayBefore = new Date().toISOString().slice(0, 10);
    for (const status of ['ok', 'ok', 'ok', 'error']) await checkIn(status);
    await eventually(async () => {
      const list = await t
        .api()
        .get(`/api/projects/${project.id}/monitors/${monitor.slug}/check-ins`)
        .expect(200);
      return list.body.data.length === 4;
    }, 30_000);

    const slug = `crons-${project.id}`;
    const refused = await t
      .api()
      .put(`/api/projects/${project.id}/status-page`)
      .send({ enabled: true, slug, cron_monitor_ids: [monitor.id, 999_999] })
      .expect(400);
    expect(refused.body.error).toContain('no cron monitor 999999 in this project');
    await t
      .api()
      .put(`/api/projects/${project.id}/status-page`)
      .send({ enabled: true, slug, cron_monitor_ids: [monitor.id] })
      .expect(200);

    const page = (await t.http().get(`/api/status/${slug}`).expect(200)).body as {
      monitors: {
        name: string;
        kind: string;
        status: string;
        days: { date: string; uptime_percent: number | null }[];
      }[];
    };
    expect(page.monitors).toHaveLength(1);
    expect(page.monitors[0]).toMatchObject({ name: 'Nightly export', kind: 'cron', status: 'down' });
    expect(page.monitors[0].days).toHaveLength(90);
    const shown = page.monitors[0].days.filter((day) => day.uptime_percent !== null);
    // The runs fall on one UTC day unless the test ran across midnight.
    if (dayBefore === new Date().toISOString().slice(0, 10))
      expect(shown).toEqual([{ date: dayBefore, uptime_percent: 75 }]);
    else expect(shown.length).toBeGreaterThan(0);
    expect(JSON.stringify(page)).not.toContain(monitor.slug);
  });
});
