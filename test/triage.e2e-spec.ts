/**
 * Triage through the API with the real digest: resolving in a release, snoozes of each kind, bulk
 * changes by ids and by query, the activity log, releases and environments.
 */
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { IssueTriageService } from '../src/issues/issue-triage.service';
import type { IssueView } from '../src/issues/issue-view';
import { startTestApp, TestApp } from './helpers/app';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

/** An issue as the API serves it. */
type IssueBody = IssueView;

describe('triage: releases, resolution in a release, snoozes, bulk changes, activity', () => {
  let t: TestApp;
  let digest: Queue;
  let alerts: Queue;
  let db: DataSource;
  let project: { id: number; slug: string };
  let group = 0;

  beforeAll(async () => {
    t = await startTestApp();
    digest = openQueue(t, QueueName.Digest);
    alerts = openQueue(t, QueueName.Alerts);
    db = t.app.get(DataSource);
    project = (await t.api().post('/api/projects').send({ name: 'Triage Shop' }).expect(201)).body;
  });
  afterAll(async () => {
    await digest.close();
    await alerts.close();
    await t.close();
  });

  const issue = async (id: number): Promise<IssueBody> =>
    (await t.api().get(`/api/issues/${id}`).expect(200)).body;

  /** Sends an event of fingerprint `name` and waits until its issue has counted it. */
  async function send(
    name: string,
    fields: Record<string, unknown> = {},
    projectId = project.id,
  ): Promise<IssueBody> {
    const before = await db.query(
      'SELECT id, event_count FROM issues WHERE project_id = $1 AND message = $2',
      [projectId, `${name} failed`],
    );
    await enqueueEvent(digest, projectId, { message: `${name} failed`, fingerprint: [name], ...fields });
    const id = await eventually(async () => {
      const rows: { id: number; event_count: number }[] = await db.query(
        'SELECT id, event_count FROM issues WHERE project_id = $1 AND message = $2',
        [projectId, `${name} failed`],
      );
      const row = rows[0];
      return row && row.event_count === (before[0]?.event_count ?? 0) + 1 && row.id;
    });
    return issue(id);
  }

  const fresh = () => `triage-${++group}`;
  const patch = (id: number, body: Record<string, unknown>) => t.api().patch(`/api/issues/${id}`).send(body);

  async function triggersFor(issueId: number): Promise<string[]> {
    const jobs = await alerts.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
    return jobs.filter((job) => job.data.issueId === issueId).map((job) => job.data.alertType as string);
  }

  async function activityKinds(id: number): Promise<string[]> {
    const body = (await t.api().get(`/api/issues/${id}/activity`).expect(200)).body;
    return body.data.map((entry: { kind: string }) => entry.kind);
  }

  it('records the first and last release of an issue, and lists releases and environments', async () => {
    const name = fresh();
    await send(name, { release: 'shop@1.0.0', environment: 'production' });
    const later = await send(name, { release: 'shop@1.1.0', environment: 'staging' });
    expect(later).toMatchObject({ first_release: 'shop@1.0.0', last_release: 'shop@1.1.0' });
    await settleRollups(t.app);

    const releases = (await t.api().get(`/api/projects/${project.id}/releases`).expect(200)).body;
    const byVersion = new Map(
      releases.data.map((release: { version: string }) => [release.version, release]),
    );
    expect(byVersion.get('shop@1.0.0')).toMatchObject({
      version: 'shop@1.0.0',
      event_count: 1,
      new_issues: 1,
    });
    expect(byVersion.get('shop@1.1.0')).toMatchObject({ event_count: 1, new_issues: 0 });
    const one = (
      await t
        .api()
        .get(`/api/projects/${project.id}/releases/${encodeURIComponent('shop@1.1.0')}`)
        .expect(200)
    ).body;
    expect(one).toMatchObject({ version: 'shop@1.1.0', event_count: 1, new_issues: 0 });
    expect(Date.parse(one.first_event)).toBeLessThanOrEqual(Date.parse(one.last_event));
    await t
      .api()
      .get(`/api/projects/${project.id}/releases/nope%401.0`)
      .expect(404, { error: 'release not found' });

    const environments = (await t.api().get(`/api/projects/${project.id}/environments`).expect(200)).body;
    expect(environments.data.map((environment: { name: string }) => environment.name).sort()).toEqual(
      expect.arrayContaining(['production', 'staging']),
    );
  });

  it('resolved in a version: events of that version or older are counted, a newer one reopens', async () => {
    const name = fresh();
    const first = await send(name, { release: 'api@9.0.0' });
    const resolved = (await patch(first.id, { state: 'resolved', resolved_in: 'api@9.0.0' }).expect(200))
      .body;
    expect(resolved).toMatchObject({ state: 'resolved', resolved_in: 'api@9.0.0' });

    expect(await send(name, { release: 'api@9.0.0' })).toMatchObject({
      state: 'resolved',
      regression_count: 0,
    });
    expect(await send(name, { release: 'api@1.5.0' })).toMatchObject({
      state: 'resolved',
      regression_count: 0,
    });
    expect(await send(name)).toMatchObject({ state: 'resolved', event_count: 4 });
    // 10 > 9 as versions, not as text.
    const reopened = await send(name, { release: 'api@10.0.0' });
    expect(reopened).toMatchObject({ state: 'open', regression_count: 1, resolved_in: null });
    expect(await eventually(async () => (await triggersFor(first.id)).includes('regression'))).toBe(true);
    expect(await activityKinds(first.id)).toEqual(['first_seen', 'resolved', 'regressed']);
  });

  it('resolved in the next release: the current newest release does not reopen, a release after it does', async () => {
    const other = (await t.api().post('/api/projects').send({ name: 'Next Release' }).expect(201)).body;
    const name = fresh();
    // Not semantic versions: ordered by their first event.
    const first = await send(name, { release: 'build-red' }, other.id);
    await send(name, { release: 'build-blue' }, other.id);
    await settleRollups(t.app);
    await patch(first.id, { state: 'resolved', resolved_in: 'next_release' }).expect(200);
    expect(await send(name, { release: 'build-blue' }, other.id)).toMatchObject({ state: 'resolved' });
    expect(await send(name, { release: 'build-red' }, other.id)).toMatchObject({ state: 'resolved' });
    expect(await send(name, { release: 'build-green' }, other.id)).toMatchObject({
      state: 'open',
      regression_count: 1,
    });
  });

  it('a plain resolve still reopens on any event', async () => {
    const name = fresh();
    const first = await send(name, { release: 'api@1.0.0' });
    await patch(first.id, { state: 'resolved' }).expect(200);
    expect(await send(name, { release: 'api@0.1.0' })).toMatchObject({ state: 'open', regression_count: 1 });
  });

  it('snoozes until a number of events, then opens by itself with the unmute alert', async () => {
    const name = fresh();
    const first = await send(name);
    const muted = (await patch(first.id, { state: 'muted', mute_until_count: 3 }).expect(200)).body;
    expect(muted).toMatchObject({ state: 'muted', mute_until_count: 3 });
    expect(await send(name)).toMatchObject({ state: 'muted' });
    expect(await send(name)).toMatchObject({ state: 'muted' });
    expect(await send(name)).toMatchObject({ state: 'open', mute_until_count: null, event_count: 4 });
    expect(await eventually(async () => (await triggersFor(first.id)).includes('unmute'))).toBe(true);
    expect(await activityKinds(first.id)).toEqual(['first_seen', 'muted', 'unmuted']);
  });

  it('snoozes until a time: the sweep opens it once the time has come, and an event after it too', async () => {
    const triage = t.app.get(IssueTriageService);
    const name = fresh();
    const first = await send(name);
    const until = new Date(Date.now() + 3_600_000);
    await patch(first.id, { state: 'muted', mute_until: until.toISOString() }).expect(200);
    expect((await issue(first.id)).mute_until).toBe(until.toISOString());
    expect(await triage.endSnoozes(new Date(until.getTime() - 1_000))).toBe(0);
    expect((await issue(first.id)).state).toBe('muted');
    expect(await triage.endSnoozes(new Date(until.getTime() + 1_000))).toBe(1);
    expect(await issue(first.id)).toMatchObject({ state: 'open', mute_until: null });
    expect(await eventually(async () => (await triggersFor(first.id)).includes('unmute'))).toBe(true);

    // An event after the time opens it as well, without waiting for the sweep.
    const second = fresh();
    const other = await send(second);
    await patch(other.id, { state: 'muted', mute_until: new Date(Date.now() + 1_500).toISOString() }).expect(
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(await send(second)).toMatchObject({ state: 'open' });
  });

  it('snoozes until a number of users: the sweep opens it once enough new users are affected', async () => {
    const triage = t.app.get(IssueTriageService);
    const name = fresh();
    const first = await send(name, { user: { id: 'old-user' } });
    await settleRollups(t.app);
    await patch(first.id, { state: 'muted', mute_until_users: 2 }).expect(200);
    await send(name, { user: { id: 'old-user' } });
    await send(name, { user: { id: 'new-1' } });
    await settleRollups(t.app);
    await triage.endSnoozes();
    expect((await issue(first.id)).state).toBe('muted');
    await send(name, { user: { id: 'new-2' } });
    await settleRollups(t.app);
    await triage.endSnoozes();
    expect(await issue(first.id)).toMatchObject({ state: 'open', user_count: 3 });
  });

  it.each([
    [
      'resolved_in with another state',
      { state: 'open', resolved_in: 'next_release' },
      'resolved_in goes with state "resolved"',
    ],
    [
      'a mute condition with another state',
      { state: 'resolved', mute_until_count: 3 },
      'mute_until, mute_until_count and mute_until_users go with state "muted"',
    ],
    [
      'a time in the past',
      { state: 'muted', mute_until: '2020-01-01T00:00:00Z' },
      'mute_until must be in the future',
    ],
    [
      'a time that is not one',
      { state: 'muted', mute_until: 'tomorrow' },
      'mute_until must be an ISO 8601 time',
    ],
    [
      'a count of zero',
      { state: 'muted', mute_until_count: 0 },
      'mute_until_count must be a positive integer',
    ],
    [
      'an empty version',
      { state: 'resolved', resolved_in: '' },
      'resolved_in must be "next_release" or a version of 1 to 200 characters',
    ],
  ])('refuses %s with a 400', async (_, body, message) => {
    const first = await send(fresh());
    await patch(first.id, body).expect(400, { error: message });
    expect((await issue(first.id)).state).toBe('open');
  });

  it('changes many issues by ids in one request, and refuses ids of another project', async () => {
    const a = await send(fresh());
    const b = await send(fresh());
    const url = `/api/projects/${project.id}/issues`;
    await t
      .api()
      .patch(url)
      .send({ ids: [a.id, b.id], state: 'muted', mute_until_count: 100 })
      .expect(200, { updated: 2 });
    expect((await issue(a.id)).state).toBe('muted');
    expect((await issue(b.id)).mute_until_count).toBe(100);
    await t
      .api()
      .patch(url)
      .send({ ids: [a.id, b.id], state: 'open' })
      .expect(200, { updated: 2 });
    expect(await eventually(async () => (await triggersFor(b.id)).includes('unmute'))).toBe(true);

    const elsewhere = (await t.api().post('/api/projects').send({ name: 'Elsewhere' }).expect(201)).body;
    const foreign = await send(fresh(), {}, elsewhere.id);
    await t
      .api()
      .patch(url)
      .send({ ids: [a.id, foreign.id], state: 'resolved' })
      .expect(400, { error: 'ids must be issues of this project' });
    expect((await issue(a.id)).state).toBe('open');
    await t.api().patch(url).send({ state: 'resolved' }).expect(400, { error: 'give either ids or query' });
    await t
      .api()
      .patch(url)
      .send({ ids: [a.id], query: 'is:open', state: 'resolved' })
      .expect(400, { error: 'give either ids or query' });
  });

  it('changes every issue a query matches, in one request', async () => {
    const other = (await t.api().post('/api/projects').send({ name: 'Bulk Query' }).expect(201)).body;
    const names = [fresh(), fresh(), fresh()];
    await send(names[0], { level: 'warning' }, other.id);
    await send(names[1], { level: 'warning' }, other.id);
    await send(names[2], { level: 'error' }, other.id);
    const url = `/api/projects/${other.id}/issues`;
    await t
      .api()
      .patch(url)
      .send({ query: 'level:warning', state: 'resolved', resolved_in: 'next_release' })
      .expect(200, {
        updated: 2,
      });
    const listed = (
      await t
        .api()
        .get(`${url}?query=${encodeURIComponent('is:resolved')}`)
        .expect(200)
    ).body;
    expect(listed.data).toHaveLength(2);
    expect(listed.data.every((row: IssueBody) => row.resolved_in === 'next_release')).toBe(true);
    await t
      .api()
      .patch(url)
      .send({ query: 'colour:red', state: 'open' })
      .expect(400)
      .expect((response) => expect(response.body.error).toMatch(/^query: unknown key "colour"/));
  });
});
