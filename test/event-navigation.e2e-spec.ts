/**
 * Moving between an issue's events (previous, next, latest, oldest), searching them, and the user
 * as the SDK sent it, through the real digest.
 */
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { startTestApp, TestApp } from './helpers/app';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';

describe('event navigation and search', () => {
  let t: TestApp;
  let digest: Queue;
  let issueId: number;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    digest = openQueue(t, QueueName.Digest);
    const project = (await t.api().post('/api/projects').send({ name: 'Navigation' }).expect(201)).body;
    const base = Date.parse('2026-11-20T10:00:00.000Z');
    const variants = [
      {
        environment: 'production',
        release: 'app@1.0.0',
        tags: { region: 'eu' },
        user: { id: 'u1', email: 'ann@example.com' },
      },
      {
        environment: 'staging',
        release: 'app@1.0.0',
        tags: { region: 'us' },
        user: { id: 'u2', email: 'bob@example.com' },
      },
      {
        environment: 'production',
        release: 'app@1.1.0',
        tags: { region: 'eu' },
        level: 'warning',
        user: {
          id: 'u3',
          email: 'cy@example.com',
          username: 'cy',
          ip_address: '192.0.2.9',
          segment: 'paid',
          data: { plan: 'pro' },
        },
      },
    ];
    for (const [index, variant] of variants.entries()) {
      ids.push(
        await enqueueEvent(digest, project.id, {
          message: 'navigation failed',
          fingerprint: ['navigation'],
          timestamp: new Date(base + index * 60_000).toISOString(),
          ...variant,
        }),
      );
    }
    const db = t.app.get(DataSource);
    issueId = await eventually(async () => {
      const rows: { id: number; event_count: number }[] = await db.query(
        'SELECT id, event_count FROM issues WHERE project_id = $1',
        [project.id],
      );
      return rows[0]?.event_count === 3 && rows[0].id;
    });
  });
  afterAll(async () => {
    await digest.close();
    await t.close();
  });

  it('links each event to the one before and after it in its issue', async () => {
    const middle = (await t.api().get(`/api/events/${ids[1]}`).expect(200)).body;
    expect(middle).toMatchObject({ previous_event_id: ids[0], next_event_id: ids[2] });
    const first = (await t.api().get(`/api/events/${ids[0]}`).expect(200)).body;
    expect(first).toMatchObject({ previous_event_id: null, next_event_id: ids[1] });
    const last = (await t.api().get(`/api/events/${ids[2]}`).expect(200)).body;
    expect(last).toMatchObject({ previous_event_id: ids[1], next_event_id: null });
  });

  it('serves the latest and the oldest event of an issue in full', async () => {
    const latest = (await t.api().get(`/api/issues/${issueId}/events/latest`).expect(200)).body;
    expect(latest).toMatchObject({
      id: ids[2],
      issue_id: issueId,
      next_event_id: null,
      release: 'app@1.1.0',
    });
    const oldest = (await t.api().get(`/api/issues/${issueId}/events/oldest`).expect(200)).body;
    expect(oldest).toMatchObject({ id: ids[0], previous_event_id: null });
    await t.api().get('/api/issues/999999/events/latest').expect(404, { error: 'issue not found' });
  });

  it('returns the user as sent, every field, in the full event; the list keeps id and e-mail', async () => {
    const event = (await t.api().get(`/api/events/${ids[2]}`).expect(200)).body;
    expect(event.user).toEqual({
      id: 'u3',
      email: 'cy@example.com',
      username: 'cy',
      ip_address: '192.0.2.9',
      segment: 'paid',
      data: { plan: 'pro' },
    });
    const list = (await t.api().get(`/api/issues/${issueId}/events`).expect(200)).body;
    expect(list.data[0].user).toEqual({ id: 'u3', email: 'cy@example.com' });
  });

  it("searches an issue's events by environment, release, level, user and tags", async () => {
    const search = async (query: string) =>
      (
        await t
          .api()
          .get(`/api/issues/${issueId}/events?query=${encodeURIComponent(query)}`)
          .expect(200)
      ).body.data.map((event: { id: string }) => event.id);
    expect(await search('environment:production')).toEqual([ids[2], ids[0]]);
    expect(await search('!environment:production')).toEqual([ids[1]]);
    expect(await search('release:app@1.0.0 region:us')).toEqual([ids[1]]);
    expect(await search('region:[eu,us] level:warning')).toEqual([ids[2]]);
    expect(await search('user.email:ann@example.com')).toEqual([ids[0]]);
    expect(await search('user.id:[u2,u3]')).toEqual([ids[2], ids[1]]);
    const refused = await t
      .api()
      .get(`/api/issues/${issueId}/events?query=${encodeURIComponent('first_seen:-1d')}`)
      .expect(400);
    expect(refused.body.error).toBe(
      'query: "first_seen:-1d": events are searched by tags, level, environment, release and user only',
    );
  });
});
