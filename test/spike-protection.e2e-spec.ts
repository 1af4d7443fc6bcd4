/**
 * Spike protection end to end, with the injectable clock (Clock): the minute job publishes each
 * project's limit from its recent hourly volume (project_hourly), ingest drops a burst far above it
 * with 429 and the reason `spike_protection`, the spike is recorded, its one alert is delivered by
 * the real worker to a webhook receiver on loopback, and the quotas API shows it; a project with a
 * steady volume of the same size is not limited; the spike ends after a quiet hour.
 */
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SpikeAlertsService } from '../src/alerts/spike-alerts.service';
import { Clock } from '../src/common/clock';
import { OutcomeCounter } from '../src/outcomes/outcome-counter';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { sendEvent } from './helpers/quotas';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

interface Project {
  id: number;
  client_key: string;
}

const FLOOR = 5;
const HOUR = 3_600_000;

describe('spike protection', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let now = Date.parse('2031-06-15T10:20:00Z');

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
      SPIKE_PROTECTION_MIN_PER_HOUR: String(FLOOR),
      SPIKE_PROTECTION_MULTIPLIER: '10',
    });
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => now);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    await receiver?.close();
  });

  async function createProject(name: string): Promise<Project> {
    const project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `${name} ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    // Thirty days old: its baseline is averaged over the whole week.
    await t.app
      .get(DataSource)
      .query(`UPDATE projects SET created_at = $2 WHERE id = $1`, [
        project.id,
        new Date(now - 30 * 24 * HOUR),
      ]);
    return project;
  }

  /** `perHour` accepted events in each of the 168 hours before the current one, as the rollups hold them. */
  async function steadyHistory(project: Project, perHour: number): Promise<void> {
    const hour = now - (now % HOUR);
    await t.app.get(DataSource).query(
      `INSERT INTO project_hourly (project_id, hour, environment, count)
       SELECT $1, to_timestamp($2::float8 / 1000) - make_interval(hours => h), 'production', $3
         FROM generate_series(1, 168) AS h`,
      [project.id, hour, perHour],
    );
  }

  async function quotas(project: Project) {
    return (await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body as {
      usage: { spike_limit: number | null; this_hour: number };
      current_spike: { started_at: string; limit_per_hour: number; dropped: number } | null;
      recent_spikes: { ended_at: string | null }[];
    };
  }

  it('drops a burst far above the recent hourly volume, alerts once, and shows the spike', async () => {
    const project = await createProject('Bursty');
    const channel = (
      await t
        .api()
        .post('/api/alert-channels')
        .send({
          name: `spikes ${project.id}`,
          channel_type: 'webhook',
          config: { url: `${receiver.url}/spikes/${project.id}` },
        })
        .expect(201)
    ).body as { id: number };
    await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({ name: 'Spikes', alert_type: 'spike_protection', channel_ids: [channel.id], conditions: {} })
      .expect(201);
    await t.app.get(SpikeAlertsService).check();
    expect((await quotas(project)).usage.spike_limit).toBe(FLOOR);

    for (let i = 0; i < FLOOR; i++) await sendEvent(t, project).expect(200);
    const before = t.app.get(OutcomeCounter).totals().get('rate_limited,error,spike_protection') ?? 0;
    const refused = await sendEvent(t, project).expect(429);
    expect(refused.headers['retry-after']).toBe(String(40 * 60));
    expect(refused.headers['x-sentry-rate-limits']).toMatch(
      /^2400:default;error;.*:project:spike_protection$/,
    );
    await sendEvent(t, project).expect(429);
    expect(t.app.get(OutcomeCounter).totals().get('rate_limited,error,spike_protection')).toBe(before + 2);

    const first = await t.app.get(SpikeAlertsService).check();
    expect(first).toMatchObject({ spikes: 1, queued: 1 });
    now += 5 * 60_000;
    await sendEvent(t, project).expect(429);
    expect(await t.app.get(SpikeAlertsService).check()).toMatchObject({ spikes: 0, queued: 0 });

    const delivered = await eventually(async () => {
      const hits = receiver.received.filter((hit) => hit.body.alert_type === 'spike_protection');
      const mine = hits.filter((hit) => (hit.body.project as { id: number }).id === project.id);
      return mine.length > 0 && mine;
    });
    expect(delivered).toHaveLength(1);
    expect(delivered[0].body).toMatchObject({
      alert_type: 'spike_protection',
      test: false,
      spike: {
        limit_per_hour: FLOOR,
        dropped: 2,
        started_at: new Date(Date.parse('2031-06-15T10:20:00Z')).toISOString(),
      },
    });

    const shown = await quotas(project);
    expect(shown.current_spike).toMatchObject({ limit_per_hour: FLOOR, dropped: 3 });

    // The next hour accepts again up to the limit; a whole quiet hour after the last drop ends the spike.
    now = Date.parse('2031-06-15T11:05:00Z');
    await sendEvent(t, project).expect(200);
    await t.app.get(SpikeAlertsService).check();
    expect((await quotas(project)).current_spike).not.toBeNull();
    now = Date.parse('2031-06-15T12:01:00Z');
    await t.app.get(SpikeAlertsService).check();
    const ended = await quotas(project);
    expect(ended.current_spike).toBeNull();
    expect(ended.recent_spikes[0].ended_at).toBe('2031-06-15T11:00:00.000Z');
    expect(
      receiver.received.filter((hit) => (hit.body.project as { id?: number })?.id === project.id),
    ).toHaveLength(1);
    now = Date.parse('2031-06-15T10:20:00Z');
  });

  it('does not engage for a project whose volume is steady at that level', async () => {
    const project = await createProject('Steady');
    await steadyHistory(project, 3);
    await t.app.get(SpikeAlertsService).check();
    // max(floor 5, 10 × 3 per hour)
    expect((await quotas(project)).usage.spike_limit).toBe(30);
    for (let i = 0; i < 12; i++) await sendEvent(t, project).expect(200);
    await t.app.get(SpikeAlertsService).check();
    expect((await quotas(project)).current_spike).toBeNull();
  });

  it('can be turned off per project', async () => {
    const project = await createProject('Unprotected');
    await t.api().patch(`/api/projects/${project.id}/quotas`).send({ spike_protection: false }).expect(200);
    expect((await quotas(project)).usage.spike_limit).toBeNull();
    for (let i = 0; i < FLOOR + 3; i++) await sendEvent(t, project).expect(200);
  });

  it('takes spike_protection rules without conditions only', async () => {
    const project = await createProject('Rules');
    await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({
        name: 'Spikes',
        alert_type: 'spike_protection',
        channel_ids: [],
        conditions: { min_level: 'error' },
      })
      .expect(400, { error: 'spike_protection rules take no conditions (send {})' });
  });
});
