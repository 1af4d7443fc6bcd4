/**
 * What a release page reads besides the release itself, with events sent through the real ingest and
 * digest: the issues first seen in a release (`first_release:`), the issues resolved in it
 * (`resolved_in:`, "the next release" included once it is known), the name of that next release on
 * the issue, and the test event the setup page sends.
 */
import { TEST_EVENT_MESSAGE } from '../src/ingest/test-event';
import type { IssueView } from '../src/issues/issue-view';
import { startTestApp, TestApp } from './helpers/app';
import { as, expectStatus, invitedAccount } from './helpers/members';
import { sendStoredEvent } from './helpers/envelopes';
import { storedEvent } from './helpers/queues';

describe('release issues, the next release, and the test event', () => {
  let t: TestApp;
  let project: { id: number; slug: string; client_key: string };

  beforeAll(async () => {
    t = await startTestApp();
    project = (await t.api().post('/api/projects').send({ name: 'Release Shop' }).expect(201)).body;
  });
  afterAll(() => t?.close());

  /** Sends one event through ingest, as an SDK does, and waits until it is stored; returns its issue. */
  async function send(message: string, release?: string): Promise<IssueView> {
    const event = await sendStoredEvent(t, project, { message, release });
    return (await t.api().get(`/api/issues/${event.issue_id}`).expect(200)).body;
  }

  const search = async (query: string): Promise<string[]> => {
    const page = await t.api().get(`/api/projects/${project.id}/issues`).query({ query }).expect(200);
    return (page.body.data as IssueView[]).map((issue) => issue.message).sort();
  };

  it('lists the issues first seen in a release, and those resolved in it', async () => {
    const checkout = await send('Checkout failed', 'shop@1.0.0');
    const cart = await send('Cart failed', 'shop@1.0.0');
    await send('Checkout failed', 'shop@1.1.0');
    const search_ = await send('Search failed', 'shop@1.1.0');
    await send('No release failed');

    expect(await search('first_release:shop@1.0.0')).toEqual(['Cart failed', 'Checkout failed']);
    expect(await search('first_release:"shop@1.1.0"')).toEqual(['Search failed']);
    expect(await search('!first_release:[shop@1.0.0,shop@1.1.0]')).toEqual(['No release failed']);
    // The `release:` tag is every release an issue was seen in; `first_release:` only its first.
    expect(await search('release:shop@1.1.0')).toEqual(['Checkout failed', 'Search failed']);

    // Resolved in a named release, and in the next one while the newest is shop@1.1.0.
    await t
      .api()
      .patch(`/api/issues/${cart.id}`)
      .send({ state: 'resolved', resolved_in: 'shop@1.1.0' })
      .expect(200);
    const resolved = await t
      .api()
      .patch(`/api/issues/${search_.id}`)
      .send({ state: 'resolved', resolved_in: 'next_release' })
      .expect(200);
    expect(resolved.body).toMatchObject({ resolved_in: 'next_release', next_release: null });
    expect(await search('resolved_in:shop@1.1.0')).toEqual(['Cart failed']);
    expect(await search('resolved_in:shop@1.2.0')).toEqual([]);
    // An issue not resolved in a release has no next release to name.
    expect((await t.api().get(`/api/issues/${checkout.id}`).expect(200)).body).not.toHaveProperty(
      'next_release',
    );

    // A newer release becomes known (an event of another issue): it is the next release.
    await send('Payment failed', 'shop@1.2.0');
    expect((await t.api().get(`/api/issues/${search_.id}`).expect(200)).body).toMatchObject({
      state: 'resolved',
      resolved_in: 'next_release',
      next_release: 'shop@1.2.0',
    });
    expect(await search('resolved_in:shop@1.2.0')).toEqual(['Search failed']);
    expect(await search('resolved_in:[shop@1.1.0,shop@1.2.0]')).toEqual(['Cart failed', 'Search failed']);
    expect(await search('is:resolved !resolved_in:shop@1.2.0')).toEqual(['Cart failed']);
    // And a later release does not take its place.
    await send('Login failed', 'shop@1.3.0');
    expect((await t.api().get(`/api/issues/${search_.id}`).expect(200)).body.next_release).toBe('shop@1.2.0');

    // Bulk changes by query understand it too.
    const bulk = await t
      .api()
      .patch(`/api/projects/${project.id}/issues`)
      .send({ query: 'resolved_in:shop@1.2.0', state: 'open' })
      .expect(200);
    expect(bulk.body.updated).toBe(1);
  });

  it('resolved in the next release before any release: the first release to come is the next one', async () => {
    const other = (await t.api().post('/api/projects').send({ name: 'Release Less' }).expect(201)).body;
    project = other;
    const early = await send('Early failed');
    await t
      .api()
      .patch(`/api/issues/${early.id}`)
      .send({ state: 'resolved', resolved_in: 'next_release' })
      .expect(200);
    expect((await t.api().get(`/api/issues/${early.id}`).expect(200)).body.next_release).toBeNull();
    // Another issue's event brings the project's first release.
    await send('Later failed', 'app@2.0.0');
    expect((await t.api().get(`/api/issues/${early.id}`).expect(200)).body.next_release).toBe('app@2.0.0');
    expect(await search('resolved_in:app@2.0.0')).toEqual(['Early failed']);
  });

  it('refuses a release key without a value', async () => {
    const response = await t
      .api()
      .get(`/api/projects/${project.id}/issues`)
      .query({ query: 'first_release:' })
      .expect(400);
    expect(response.body).toEqual({ error: 'query: "first_release:": first_release: needs a value' });
  });

  it('sends a test event through the digest: it becomes an issue of the project', async () => {
    const answer = await t.api().post(`/api/projects/${project.id}/test-event`).expect(202);
    expect(answer.body).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/),
    });
    const event = await storedEvent(t, answer.body.event_id);
    expect(event.project_id).toBe(project.id);
    const issue: IssueView = (await t.api().get(`/api/issues/${event.issue_id}`).expect(200)).body;
    expect(issue).toMatchObject({ project_id: project.id, message: TEST_EVENT_MESSAGE, level: 'error' });

    // A second one is the same issue, one event more.
    const again = await t.api().post(`/api/projects/${project.id}/test-event`).expect(202);
    expect((await storedEvent(t, again.body.event_id)).issue_id).toBe(event.issue_id);
  });

  it('sends test events only for those who may change the project', async () => {
    await t.api().post('/api/projects/999999/test-event').expect(404);
    expect((await t.api().post('/api/projects/abc/test-event').expect(400)).body.error).toEqual(
      expect.any(String),
    );
    const team = (await t.api().post('/api/teams').send({ name: 'Release viewers' }).expect(201)).body;
    await t.api().put(`/api/teams/${team.id}/projects/${project.id}`).expect(204);
    const operator = as(t, { token: t.token });
    const viewer = await invitedAccount(t, operator, 'viewer', { teamIds: [team.id] });
    const refused = await expectStatus(
      as(t, { token: viewer.token }).post(`/api/projects/${project.id}/test-event`),
      403,
    );
    expect(refused.body.error).toMatch(/viewer/);
    const member = await invitedAccount(t, operator, 'member', { teamIds: [team.id] });
    await expectStatus(as(t, { token: member.token }).post(`/api/projects/${project.id}/test-event`), 202);
    await t.http().post(`/api/projects/${project.id}/test-event`).expect(401);
  });
});
