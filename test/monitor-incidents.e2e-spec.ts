/**
 * The issues monitors open, against the real database, alerts queue and a local webhook receiver:
 * a failure opens one issue per monitor and environment (kind `cron` or `uptime`) and alerts
 * `monitor_failed` once; further failures count on it without alerting; recovery resolves it and
 * alerts `monitor_recovered`; a new failure reopens it as a regression and alerts again; a repeated
 * call changes nothing; a user's triage and deletion work as for any issue; `kind:` searches;
 * rule conditions on environments.
 */
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MonitorIncidentsService } from '../src/monitors/incidents/monitor-incidents.service';
import type { MonitorRef } from '../src/monitors/incidents/monitor-ref';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

interface Project {
  id: number;
  name: string;
}

interface IssueBody {
  id: number;
  kind: string;
  state: string;
  type: string;
  message: string;
  event_count: number;
  regression_count: number;
  monitor: { kind: string; monitor_id: number; environment: string } | null;
}

const minute = (n: number) => new Date(Date.UTC(2026, 10, 26, 10, n));

describe('monitor incidents', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let incidents: MonitorIncidentsService;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({ ALERTS_ALLOW_PRIVATE_NETWORKS: 'true', ALERTS_RETRY_BASE_DELAY_MS: '50' });
    incidents = t.app.get(MonitorIncidentsService);
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function projectWithRules(conditions: Record<string, unknown> = {}): Promise<Project> {
    const project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Monitored ${randomUUID().slice(0, 8)}` })
        .expect(201)
    ).body as Project;
    const channel = await t
      .api()
      .post('/api/alert-channels')
      .send({ name: `hook ${project.id}`, channel_type: 'webhook', config: { url: receiver.url } })
      .expect(201);
    for (const alertType of ['monitor_failed', 'monitor_recovered'])
      await t
        .api()
        .post(`/api/projects/${project.id}/alert-rules`)
        .send({ name: alertType, alert_type: alertType, channel_ids: [channel.body.id], conditions })
        .expect(201);
    return project;
  }

  const hooksOf = (project: Project) =>
    receiver.received.filter((hook) => JSON.stringify(hook.body).includes(project.name));
  const alertTypesOf = (project: Project) =>
    hooksOf(project).map((hook) => (hook.body as { alert_type?: string }).alert_type);

  const issue = async (id: number) => (await t.api().get(`/api/issues/${id}`).expect(200)).body as IssueBody;

  const ref = (project: Project, environment = 'production', monitorId = 7): MonitorRef => ({
    projectId: project.id,
    kind: 'cron',
    monitorId,
    slug: 'nightly-backup',
    name: 'Nightly backup',
    environment,
  });

  it('opens one issue per incident, alerts once, resolves on recovery and reopens on the next failure', async () => {
    const project = await projectWithRules();
    const first = await incidents.monitorFailed(ref(project), {
      at: minute(5),
      reason: 'missed',
      detail: 'No check-in expected at 10:05 UTC',
    });
    expect(first).toMatchObject({ opened: true, issueId: expect.any(Number) });
    const issueId = first.issueId as number;
    expect(await issue(issueId)).toMatchObject({
      kind: 'cron',
      state: 'open',
      type: 'Cron failure',
      message: 'Nightly backup (production)',
      event_count: 1,
      monitor: { kind: 'cron', monitor_id: 7, environment: 'production' },
    });
    await eventually(async () => alertTypesOf(project).length === 1, 20_000);

    // More failures count on the open issue; the same failure again (a retried job) does not.
    const second = await incidents.monitorFailed(ref(project), {
      at: minute(6),
      reason: 'error',
      detail: 'failed',
    });
    const repeated = await incidents.monitorFailed(ref(project), {
      at: minute(6),
      reason: 'error',
      detail: 'failed',
    });
    expect([second.opened, second.issueId, repeated.opened]).toEqual([false, issueId, false]);
    expect((await issue(issueId)).event_count).toBe(2);

    const recovered = await incidents.monitorRecovered(ref(project), minute(7));
    expect(recovered.issueId).toBe(issueId);
    expect((await issue(issueId)).state).toBe('resolved');
    expect((await incidents.monitorRecovered(ref(project), minute(8))).triggers.ids).toEqual([]);

    const again = await incidents.monitorFailed(ref(project), {
      at: minute(9),
      reason: 'timeout',
      detail: 'ran over',
    });
    expect(again).toMatchObject({ opened: true, issueId });
    expect(await issue(issueId)).toMatchObject({ state: 'open', regression_count: 1, event_count: 3 });

    await eventually(async () => alertTypesOf(project).length === 3, 20_000);
    expect(alertTypesOf(project)).toEqual(['monitor_failed', 'monitor_recovered', 'monitor_failed']);
    const payload = hooksOf(project)[0].body as { issue: IssueBody & { culprit: string; url: string } };
    expect(payload.issue).toMatchObject({
      kind: 'cron',
      monitor: { monitor_id: 7, environment: 'production' },
      culprit: 'nightly-backup missed a check-in: No check-in expected at 10:05 UTC',
      url: expect.stringContaining(`/issues/${issueId}`),
    });
    // The culprit names the latest failure.
    expect((await issue(issueId)) as unknown).toMatchObject({
      culprit: 'nightly-backup timed out: ran over',
    });

    // Delivered through the history and the channel like any alert: one row per notification sent.
    await eventually(async () => {
      const history = await t.api().get(`/api/projects/${project.id}/alert-history?limit=10`).expect(200);
      const rows = history.body as { alert_type: string; status: string; issue_id: number }[];
      return rows.length === 3 && rows.every((row) => row.status === 'sent' && row.issue_id === issueId);
    }, 20_000);

    const activity = await t.api().get(`/api/issues/${issueId}/activity`).expect(200);
    const kinds = (activity.body.data as { kind: string }[]).map((entry) => entry.kind);
    expect(kinds.filter((kind) => kind.startsWith('monitor_'))).toHaveLength(3);
  });

  it('keeps environments and monitors apart, and rules match the issue’s environment', async () => {
    const project = await projectWithRules({ environments: ['production'] });
    const production = await incidents.monitorFailed(ref(project, 'production'), {
      at: minute(1),
      reason: 'missed',
      detail: 'x',
    });
    const staging = await incidents.monitorFailed(ref(project, 'staging'), {
      at: minute(1),
      reason: 'missed',
      detail: 'x',
    });
    const other = await incidents.monitorFailed(ref(project, 'production', 8), {
      at: minute(1),
      reason: 'missed',
      detail: 'x',
    });
    expect(new Set([production.issueId, staging.issueId, other.issueId]).size).toBe(3);
    await eventually(async () => alertTypesOf(project).length === 2, 20_000);
    // The staging issue matched no rule: still two after the other alerts were delivered.
    await incidents.monitorFailed(ref(project, 'production', 9), {
      at: minute(1),
      reason: 'missed',
      detail: 'x',
    });
    await eventually(async () => alertTypesOf(project).length === 3, 20_000);

    const issues = await incidents.monitorIssues(project.id, 'cron', [7, 8, 9, 10]);
    expect(Object.fromEntries([...issues].map(([key, issue]) => [key, issue.id]))).toEqual({
      '7:production': production.issueId,
      '7:staging': staging.issueId,
      '8:production': other.issueId,
      '9:production': expect.any(Number),
    });
    expect(issues.get('7:production')).toEqual({
      id: production.issueId,
      short_id: expect.stringMatching(/^[A-Z0-9-]+-\d+$/),
      state: 'open',
    });

    const search = async (query: string) =>
      (
        (await t.api().get(`/api/projects/${project.id}/issues`).query({ query }).expect(200)).body
          .data as IssueBody[]
      ).length;
    expect(await search('kind:cron')).toBe(4);
    expect(await search('kind:uptime')).toBe(0);
    expect(await search('!kind:cron')).toBe(0);
    await t.api().get(`/api/projects/${project.id}/issues`).query({ query: 'kind:disk' }).expect(400);
  });

  it('lets rules choose the kind of monitor, and refuses monitor_kinds on other types', async () => {
    const project = await projectWithRules({ monitor_kinds: ['uptime'] });
    const cron = await incidents.monitorFailed(ref(project), {
      at: minute(1),
      reason: 'missed',
      detail: 'x',
    });
    const uptime = await incidents.monitorFailed(
      { ...ref(project), kind: 'uptime', monitorId: 4, slug: 'shop', name: 'Shop' },
      { at: minute(1), reason: 'down', detail: 'HTTP 500', httpStatus: 500 },
    );
    await eventually(async () => alertTypesOf(project).length === 1, 20_000);
    const delivered = hooksOf(project)[0].body as { issue: IssueBody };
    expect(delivered.issue.id).toBe(uptime.issueId);
    expect(delivered.issue.id).not.toBe(cron.issueId);

    const refused = await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({ name: 'x', alert_type: 'new_issue', channel_ids: [], conditions: { monitor_kinds: ['cron'] } })
      .expect(400);
    expect(refused.body.error).toMatch(/monitor_kinds is not supported/);
    await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({
        name: 'x',
        alert_type: 'monitor_failed',
        channel_ids: [],
        conditions: { monitor_kinds: ['disk'] },
      })
      .expect(400);
  });

  it('takes the transaction it is given, and survives a user resolving or deleting the issue', async () => {
    const project = await projectWithRules();
    const uptime: MonitorRef = {
      ...ref(project),
      kind: 'uptime',
      monitorId: 3,
      slug: 'shop',
      name: 'Shop home page',
    };
    const db = t.app.get(DataSource);
    const opened = await db.transaction((manager) =>
      incidents.monitorFailed(
        uptime,
        { at: minute(2), reason: 'down', detail: 'HTTP 503', httpStatus: 503 },
        manager,
      ),
    );
    await incidents.publish(opened);
    const id = opened.issueId as number;
    expect(await issue(id)).toMatchObject({
      kind: 'uptime',
      type: 'Downtime',
      message: 'Shop home page (production)',
    });

    await t.api().patch(`/api/issues/${id}`).send({ state: 'resolved' }).expect(200);
    const reopened = await incidents.monitorFailed(uptime, {
      at: minute(3),
      reason: 'down',
      detail: 'HTTP 503',
    });
    expect(reopened).toMatchObject({ opened: true, issueId: id });
    // The rules match every kind: the uptime issue alerted on opening and on its reopening.
    await eventually(async () => alertTypesOf(project).length === 2, 20_000);

    await t.api().delete(`/api/issues/${id}`).expect(204);
    const fresh = await incidents.monitorFailed(uptime, {
      at: minute(4),
      reason: 'down',
      detail: 'HTTP 503',
    });
    expect(fresh.opened).toBe(true);
    expect(fresh.issueId).not.toBe(id);
  });
});
