/**
 * A release's events and new issues in one environment, as the releases API answers them with
 * `environment` set: events sent through the real ingest and digest, counted by the rollup fold,
 * and taken out again by an erasure, environment by environment.
 */
import { startTestApp, TestApp } from './helpers/app';
import { sendStoredEvent } from './helpers/envelopes';
import { settleRollups } from './helpers/rollups';

const RELEASE = 'cart@5.0.0';

describe('release events and new issues per environment', () => {
  let t: TestApp;
  let project: { id: number; client_key: string };

  beforeAll(async () => {
    t = await startTestApp();
    project = (await t.api().post('/api/projects').send({ name: 'Environment Cart' }).expect(201)).body;
    const send = (environment: string | undefined, message: string, user?: Record<string, string>) =>
      sendStoredEvent(t, project, {
        message,
        release: RELEASE,
        environment,
        level: 'error',
        ...(user ? { user } : {}),
      });
    // Production: 5 events in 2 issues it opened. Staging: 3 events, of which one opens an issue.
    for (let i = 0; i < 3; i++) await send('production', 'Basket total wrong');
    await send('production', 'Checkout button dead');
    await send('production', 'Checkout button dead', { email: 'erase-me@example.com' });
    for (let i = 0; i < 2; i++) await send('staging', 'Basket total wrong');
    await send('staging', 'Staging banner overlaps');
    // No environment at all: counted in every figure, in no environment's.
    await send(undefined, 'Nowhere in particular');
    await settleRollups(t.app);
  }, 120_000);

  afterAll(() => t?.close());

  const release = (environment?: string) =>
    t
      .api()
      .get(`/api/projects/${project.id}/releases/${encodeURIComponent(RELEASE)}`)
      .query(environment === undefined ? {} : { environment });
  const listed = async (environment?: string) => {
    const body = (
      await t
        .api()
        .get(`/api/projects/${project.id}/releases`)
        .query(environment === undefined ? {} : { environment })
        .expect(200)
    ).body;
    return body.data.find((row: { version: string }) => row.version === RELEASE);
  };

  it('counts every environment without a filter', async () => {
    expect((await release().expect(200)).body).toMatchObject({ event_count: 9, new_issues: 4 });
    expect(await listed()).toMatchObject({ event_count: 9, new_issues: 4 });
  });

  it('counts only the chosen environment’s events and the issues first seen there', async () => {
    expect((await release('production').expect(200)).body).toMatchObject({ event_count: 5, new_issues: 2 });
    expect((await release('staging').expect(200)).body).toMatchObject({ event_count: 3, new_issues: 1 });
    expect(await listed('production')).toMatchObject({ event_count: 5, new_issues: 2 });
    expect(await listed('staging')).toMatchObject({ event_count: 3, new_issues: 1 });
  });

  it('answers an environment that only events named (no sessions) with zero sessions, not a 400', async () => {
    expect((await release('staging').expect(200)).body).toMatchObject({
      sessions: 0,
      crash_free_sessions: null,
    });
    const unknown = await release('nowhere').expect(400);
    expect(unknown.body).toEqual({ error: expect.stringContaining('nowhere') });
  });

  it('takes an erased person’s events out of their environment', async () => {
    await t
      .api()
      .delete(`/api/projects/${project.id}/users/${encodeURIComponent('erase-me@example.com')}`)
      .expect(200);
    expect((await release('production').expect(200)).body).toMatchObject({ event_count: 4, new_issues: 2 });
    expect((await release('staging').expect(200)).body).toMatchObject({ event_count: 3 });
    expect((await release().expect(200)).body).toMatchObject({ event_count: 8 });
  });
});
