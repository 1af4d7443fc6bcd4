/**
 * Telling that a project's events are refused, with the injectable clock (Clock): the refusal API
 * (`GET /api/projects/{id}/quotas/refusal`) says whether the daily quota, the monthly quota or spike
 * protection refuses the project's events now, since when and until when, read from the limiter's
 * Redis state; and the `quota_exhausted` alert rule sends one alert per used-up period, however
 * many events are refused, delivered by the real worker to a webhook receiver on loopback.
 */
import { SpikeAlertsService } from '../src/alerts/spike-alerts.service';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { createQuotaProject, QuotaProject, sendEvent, setClock } from './helpers/quotas';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

const FLOOR = 3;
const START = Date.parse('2031-06-15T10:20:00Z');

interface Refusal {
  refusing: boolean;
  reason: string | null;
  since: string | null;
  until: string | null;
  limit: number | null;
  dropped: number | null;
}

describe('quota refusals', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
      SPIKE_PROTECTION_MIN_PER_HOUR: String(FLOOR),
    });
    setClock(t, START);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    await receiver?.close();
  });

  const refusal = async (project: QuotaProject) =>
    (await t.api().get(`/api/projects/${project.id}/quotas/refusal`).expect(200)).body as Refusal;

  const minuteJob = () => t.app.get(SpikeAlertsService).check();

  it('says nothing is refused while the quotas last', async () => {
    const project = await createQuotaProject(t, { daily_quota: 5, spike_protection: false });
    await sendEvent(t, project).expect(200);
    expect(await refusal(project)).toEqual({
      refusing: false,
      reason: null,
      since: null,
      until: null,
      limit: null,
      dropped: null,
    });
    await t.api().get('/api/projects/999999999/quotas/refusal').expect(404, { error: 'project not found' });
  });

  it('alerts once per day the daily quota is used up, and shows since and until when events are refused', async () => {
    setClock(t, START);
    const project = await createQuotaProject(t, { daily_quota: 2, spike_protection: false });
    const channel = (
      await t
        .api()
        .post('/api/alert-channels')
        .send({
          name: `quota ${project.id}`,
          channel_type: 'webhook',
          config: { url: `${receiver.url}/quota/${project.id}` },
        })
        .expect(201)
    ).body as { id: number };
    await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({ name: 'Quota used up', alert_type: 'quota_exhausted', channel_ids: [channel.id], conditions: {} })
      .expect(201);

    await sendEvent(t, project).expect(200);
    await sendEvent(t, project).expect(200);
    // Used up, but nothing refused yet: the next event would be.
    setClock(t, START + 60_000);
    await sendEvent(t, project).expect(429);
    setClock(t, START + 5 * 60_000);
    await sendEvent(t, project).expect(429);
    expect(await refusal(project)).toEqual({
      refusing: true,
      reason: 'daily_quota',
      since: new Date(START + 60_000).toISOString(),
      until: '2031-06-16T00:00:00.000Z',
      limit: 2,
      dropped: null,
    });

    expect(await minuteJob()).toMatchObject({ quota_alerts: 1 });
    await sendEvent(t, project).expect(429);
    expect(await minuteJob()).toMatchObject({ quota_alerts: 0 });
    const delivered = await eventually(async () => {
      const mine = receiver.received.filter(
        (hit) => hit.body.alert_type === 'quota_exhausted' && (hit.body.project as { id: number }).id === project.id,
      );
      return mine.length > 0 && mine;
    }, 30_000);
    expect(delivered).toHaveLength(1);
    expect(delivered[0].body).toMatchObject({
      alert_type: 'quota_exhausted',
      test: false,
      project: { id: project.id },
      quota: {
        reason: 'daily_quota',
        limit: 2,
        since: new Date(START + 60_000).toISOString(),
        until: '2031-06-16T00:00:00.000Z',
      },
      url: expect.stringMatching(new RegExp(`/projects/${project.id}/settings/quotas$`)),
    });

    // The next UTC day: accepted again, and used up again: one more alert.
    setClock(t, Date.parse('2031-06-16T08:00:00Z'));
    expect(await refusal(project)).toMatchObject({ refusing: false });
    await sendEvent(t, project).expect(200);
    await sendEvent(t, project).expect(200);
    await sendEvent(t, project).expect(429);
    expect(await refusal(project)).toMatchObject({ refusing: true, until: '2031-06-17T00:00:00.000Z' });
    expect(await minuteJob()).toMatchObject({ quota_alerts: 1 });
    const history = (await t.api().get(`/api/projects/${project.id}/alert-history`).expect(200)).body as Array<{
      alert_type: string;
    }>;
    expect(history.filter((entry) => entry.alert_type === 'quota_exhausted')).toHaveLength(2);
  });

  it('shows the monthly quota and spike protection refusing, until the month or the hour ends', async () => {
    setClock(t, START);
    const monthly = await createQuotaProject(t, { monthly_quota: 1, spike_protection: false });
    await sendEvent(t, monthly).expect(200);
    await sendEvent(t, monthly).expect(429);
    expect(await refusal(monthly)).toEqual({
      refusing: true,
      reason: 'monthly_quota',
      since: new Date(START).toISOString(),
      until: '2031-07-01T00:00:00.000Z',
      limit: 1,
      dropped: null,
    });

    const bursty = await createQuotaProject(t, {});
    await minuteJob();
    for (let i = 0; i < FLOOR; i++) await sendEvent(t, bursty).expect(200);
    await sendEvent(t, bursty).expect(429);
    await sendEvent(t, bursty).expect(429);
    expect(await refusal(bursty)).toEqual({
      refusing: true,
      reason: 'spike_protection',
      since: new Date(START).toISOString(),
      until: '2031-06-15T11:00:00.000Z',
      limit: FLOOR,
      dropped: 2,
    });
    setClock(t, Date.parse('2031-06-15T11:00:00Z'));
    expect(await refusal(bursty)).toMatchObject({ refusing: false });
  });

  it('refuses a quota_exhausted rule with conditions', async () => {
    const project = await createQuotaProject(t, {});
    await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({ name: 'Quota', alert_type: 'quota_exhausted', channel_ids: [], conditions: { min_level: 'error' } })
      .expect(400, { error: 'quota_exhausted rules take no conditions (send {})' });
  });
});
