/**
 * Merging issues with the real digest: events, counts and rollups move to the survivor, the merged
 * ids point to it, later events of their groups land there, and lists no longer show them.
 */
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { startTestApp, TestApp } from './helpers/app';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

describe('merging issues', () => {
  let t: TestApp;
  let digest: Queue;
  let alerts: Queue;
  let db: DataSource;
  let project: { id: number };

  beforeAll(async () => {
    t = await startTestApp();
    digest = openQueue(t, QueueName.Digest);
    alerts = openQueue(t, QueueName.Alerts);
    db = t.app.get(DataSource);
    project = (await t.api().post('/api/projects').send({ name: 'Merge Shop' }).expect(201)).body;
  });
  afterAll(async () => {
    await digest.close();
    await alerts.close();
    await t.close();
  });

  async function issueOf(group: string): Promise<number> {
    return eventually(async () => {
      const rows: { id: number }[] = await db.query(
        'SELECT id FROM issues WHERE project_id = $1 AND message = $2 AND merged_into_id IS NULL',
        [project.id, `${group} failed`],
      );
      return rows[0]?.id;
    });
  }

  const send = (group: string, fields: Record<string, unknown> = {}) =>
    enqueueEvent(digest, project.id, { message: `${group} failed`, fingerprint: [group], ...fields });

  async function waitForCount(id: number, count: number): Promise<void> {
    await eventually(async () => {
      const [row] = await db.query('SELECT event_count FROM issues WHERE id = $1', [id]);
      return row?.event_count === count;
    });
  }

  it('moves events, counts, users, tags and stats into the survivor, and the others point to it', async () => {
    const base = Date.now() - 3_600_000;
    await send('checkout', {
      user: { id: 'a' },
      release: 'shop@2.0.0',
      timestamp: new Date(base + 60_000).toISOString(),
    });
    await send('checkout', {
      user: { id: 'b' },
      release: 'shop@2.0.0',
      timestamp: new Date(base + 120_000).toISOString(),
    });
    await send('checkout-v2', {
      user: { id: 'b' },
      release: 'shop@1.0.0',
      timestamp: new Date(base).toISOString(),
    });
    await send('checkout-old', {
      user: { id: 'c' },
      release: 'shop@2.1.0',
      timestamp: new Date(base + 180_000).toISOString(),
    });
    const survivor = await issueOf('checkout');
    const second = await issueOf('checkout-v2');
    const third = await issueOf('checkout-old');
    await waitForCount(survivor, 2);
    await settleRollups(t.app);

    const merged = (
      await t
        .api()
        .post(`/api/issues/${survivor}/merge`)
        .send({ ids: [second, third] })
        .expect(200)
    ).body;
    expect(merged).toMatchObject({
      id: survivor,
      event_count: 4,
      user_count: 3,
      first_release: 'shop@1.0.0',
      last_release: 'shop@2.1.0',
      first_seen: new Date(base).toISOString(),
      last_seen: new Date(base + 180_000).toISOString(),
    });
    const events = (await t.api().get(`/api/issues/${survivor}/events`).expect(200)).body.data;
    expect(events).toHaveLength(4);
    // Each moved event is served in full, its shared parts included.
    for (const event of events) {
      const full = (await t.api().get(`/api/events/${event.id}`).expect(200)).body;
      expect(full).toMatchObject({ issue_id: survivor, message: expect.stringMatching(/failed$/) });
    }
    const tags = (await t.api().get(`/api/issues/${survivor}/tags`).expect(200)).body.data;
    const release = tags.find((tag: { key: string }) => tag.key === 'release');
    expect(release).toMatchObject({ total: 4, distinct: 3 });
    const stats = (await t.api().get(`/api/issues/${survivor}/stats?period=24h`).expect(200)).body;
    expect(stats.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0)).toBe(4);

    const pointer = await t.api().get(`/api/issues/${second}`).expect(308);
    expect(pointer.headers.location).toBe(`/api/issues/${survivor}`);
    expect(pointer.body).toEqual({
      error: `issue ${second} was merged into issue ${survivor}`,
      merged_into_id: survivor,
    });
    const events308 = await t.api().get(`/api/issues/${third}/events?limit=2`).expect(308);
    expect(events308.headers.location).toBe(`/api/issues/${survivor}/events?limit=2`);

    const listed = (await t.api().get(`/api/projects/${project.id}/issues`).expect(200)).body;
    expect(listed.data.map((issue: { id: number }) => issue.id)).toEqual([survivor]);
    expect(listed.total).toBe(1);
    const activity = (await t.api().get(`/api/issues/${survivor}/activity`).expect(200)).body.data;
    expect(activity).toEqual([
      expect.objectContaining({ kind: 'first_seen', actor: null }),
      // In id order, whichever of the two the digest numbered first.
      expect.objectContaining({ kind: 'merged', data: { merged: [second, third].sort((a, b) => a - b) } }),
    ]);
  });

  it('sends later events of a merged group to the survivor, without a new-issue alert', async () => {
    const survivor = await issueOf('checkout');
    const [merged] = await db.query('SELECT id FROM issues WHERE merged_into_id = $1 ORDER BY id LIMIT 1', [
      survivor,
    ]);
    await send('checkout-v2');
    await waitForCount(survivor, 5);
    const [pointer] = await db.query('SELECT event_count FROM issues WHERE id = $1', [merged.id]);
    expect(pointer.event_count).toBe(0);
    const jobs = await alerts.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
    const newIssueAlerts = jobs.filter(
      (job) => job.data.issueId === merged.id && job.data.alertType === 'new_issue',
    );
    // One from when it was first seen, none since.
    expect(newIssueAlerts.length).toBeLessThanOrEqual(1);
    expect((await t.api().get(`/api/projects/${project.id}/issues`).expect(200)).body.data).toHaveLength(1);
  });

  it('follows a survivor merged in turn, in one hop', async () => {
    const survivor = await issueOf('checkout');
    await send('payments');
    const payments = await issueOf('payments');
    await t
      .api()
      .post(`/api/issues/${payments}/merge`)
      .send({ ids: [survivor] })
      .expect(200);
    const pointers: { merged_into_id: number }[] = await db.query(
      'SELECT DISTINCT merged_into_id FROM issues WHERE project_id = $1 AND merged_into_id IS NOT NULL',
      [project.id],
    );
    expect(pointers).toEqual([{ merged_into_id: payments }]);
    await send('checkout-old');
    await waitForCount(payments, 7);
  });

  it.each([
    ['no ids', {}, 'ids must be an array of issue ids'],
    ['an empty list', { ids: [] }, 'ids must not be empty'],
    ['the issue itself', 'self', 'ids must not include the issue merged into'],
    ['an issue of another project', 'foreign', 'ids must be issues of the same project, not merged already'],
  ])('refuses %s with a 400', async (_, body, message) => {
    await send('refusals');
    const target = await issueOf('refusals');
    let payload: Record<string, unknown> = body as Record<string, unknown>;
    if (body === 'self') payload = { ids: [target] };
    if (body === 'foreign') {
      const other = (
        await t
          .api()
          .post('/api/projects')
          .send({ name: `Other ${Math.random()}` })
          .expect(201)
      ).body;
      await enqueueEvent(digest, other.id, { message: 'elsewhere failed', fingerprint: ['elsewhere'] });
      const foreign = await eventually(async () => {
        const rows: { id: number }[] = await db.query('SELECT id FROM issues WHERE project_id = $1', [
          other.id,
        ]);
        return rows[0]?.id;
      });
      payload = { ids: [foreign] };
    }
    await t.api().post(`/api/issues/${target}/merge`).send(payload).expect(400, { error: message });
  });
});
