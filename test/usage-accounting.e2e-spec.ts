/**
 * The figures of the Usage page against what the SDKs sent, counted by hand: the event quota's
 * "today" (what the project Settings show, from the quotas API) equals the errors Usage shows
 * accepted today (the outcomes API) whatever else came along (filtered events, client reports,
 * feedback, an event an SDK kept offline for two days); each data category stands on its own; and
 * erasing a person leaves what was accepted in the past as it was. Real ingest, digest, Redis and
 * PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { startTestApp, TestApp } from './helpers/app';
import { postEnvelope } from './helpers/envelopes';
import { createProject, hex, Project } from './helpers/projects';
import { storedEvent } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const DAY_MS = 86_400_000;

interface CategoryUsage {
  category: string;
  accepted: number | null;
  dropped: number;
  series: { start: string; accepted: number | null; dropped: number }[];
}

describe('usage figures against what was sent', () => {
  let t: TestApp;
  let project: Project;
  const stored: string[] = [];

  const send = (lines: string[]) => postEnvelope(t, project, lines);
  const event = (message: string, extra: Record<string, unknown> = {}) => {
    const id = randomUUID();
    return {
      id,
      lines: [
        '{}',
        '{"type":"event"}',
        JSON.stringify({ event_id: hex(id), message, level: 'error', ...extra }),
      ],
    };
  };

  beforeAll(async () => {
    t = await startTestApp();
    project = await createProject(t, 'Usage Accounting');
    await t.api().patch(`/api/projects/${project.id}/quotas`).send({ daily_quota: 1_000 }).expect(200);
    await t
      .api()
      .patch(`/api/projects/${project.id}/inbound-filters`)
      .send({ error_messages: ['*drop me*'] })
      .expect(200);

    // Accepted: 3 errors now, one of them a person's, and one an SDK kept offline for two days.
    for (const [message, extra] of [
      ['Checkout failed', {}],
      ['Checkout failed', {}],
      ['Basket failed', { user: { email: 'leaving@example.com' } }],
      ['Sent late', { timestamp: (Date.now() - 2 * DAY_MS) / 1000 }],
    ] as const) {
      const sent = event(message, extra);
      await send(sent.lines);
      stored.push(sent.id);
    }
    // Not accepted: a filtered event, a client report alone, feedback alone.
    await send(event('please drop me').lines);
    await send([
      '{}',
      '{"type":"client_report"}',
      JSON.stringify({
        timestamp: Date.now() / 1000,
        discarded_events: [
          { reason: 'no_parent_span', category: 'span', quantity: 30 },
          { reason: 'ratelimit_backoff', category: 'error', quantity: 9 },
        ],
      }),
    ]);
    await send([
      '{}',
      '{"type":"feedback"}',
      JSON.stringify({
        event_id: hex(randomUUID()),
        type: 'feedback',
        contexts: { feedback: { message: 'it broke', contact_email: 'a@example.com' } },
      }),
    ]);
    for (const id of stored) await storedEvent(t, id, 30_000);
    await settleRollups(t.app);
    await t.app.get(OutcomeFolder).fold();
  }, 120_000);

  afterAll(() => t?.close());

  const outcomes = async (period = '24h') =>
    (await t.api().get(`/api/projects/${project.id}/outcomes`).query({ period }).expect(200)).body;
  const quotaToday = async (): Promise<number> =>
    (await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body.usage.today;
  /** The errors Usage shows accepted in the buckets of this UTC day. */
  const acceptedToday = async (): Promise<number> => {
    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const errors = ((await outcomes()).categories as CategoryUsage[]).find(
      (usage) => usage.category === 'error',
    );
    expect(errors).toBeDefined();
    const today = errors!.series.filter((bucket) => Date.parse(bucket.start) >= midnight);
    expect(today.length).toBeGreaterThan(0);
    return today.reduce((sum, bucket) => sum + (bucket.accepted ?? 0), 0);
  };

  it('shows as the quota’s today exactly the errors Usage shows accepted today', async () => {
    expect(await quotaToday()).toBe(stored.length);
    expect(await acceptedToday()).toBe(stored.length);
  });

  it('shows each category on its own, errors first', async () => {
    const body = await outcomes();
    const categories = body.categories as CategoryUsage[];
    expect(categories.map((usage) => usage.category)).toEqual(['error', 'span']);
    expect(categories[0]).toMatchObject({ category: 'error', accepted: stored.length, dropped: 1 + 9 });
    expect(categories.find((usage) => usage.category === 'span')).toMatchObject({
      accepted: null,
      dropped: 30,
    });
    for (const usage of categories) {
      expect(usage.series).toHaveLength(24);
      expect(usage.series.reduce((sum, bucket) => sum + bucket.dropped, 0)).toBe(usage.dropped);
    }
  });

  it('leaves what was accepted in the past as it was when a person’s data is erased', async () => {
    // Over 14 days, whatever hour each event counts in.
    const before = await outcomes('14d');
    expect(before.accepted).toBe(stored.length);
    const erased = await t
      .api()
      .delete(`/api/projects/${project.id}/users/${encodeURIComponent('leaving@example.com')}`)
      .expect(200);
    expect(erased.body.events_deleted).toBe(1);
    const after = await outcomes('14d');
    expect(after.accepted).toBe(before.accepted);
    expect(after.series.map((bucket: { accepted: number }) => bucket.accepted)).toEqual(
      before.series.map((bucket: { accepted: number }) => bucket.accepted),
    );
    expect(after.categories[0]).toMatchObject({ category: 'error', accepted: stored.length });
    // The quota's count is what ingest accepted too: both still agree.
    expect(await acceptedToday()).toBe(await quotaToday());
  });
});
