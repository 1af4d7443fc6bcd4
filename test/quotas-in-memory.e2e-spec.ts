/**
 * Quotas and spike protection far below their limits, with the rate limits off: each API instance
 * counts in memory and adds its counts to Redis every 100 ms, so that most events cost no Redis round
 * trip for limits; near a limit every event is checked in Redis again, and two instances together
 * still stop at the quota exactly. Real HTTP ingest and Redis, the real clock.
 */
import { REDIS, RedisClient } from '../src/redis/redis.module';
import { LimitKeys } from '../src/limits/limit-keys';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { createQuotaProject, QuotaProject, sendEvent } from './helpers/quotas';

const RATE_LIMITS_OFF = { MAX_EVENTS_PER_MINUTE: '0', MAX_EVENTS_PER_HOUR: '0' };

describe('quotas counted in memory far below their limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(RATE_LIMITS_OFF);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  const usage = async (project: QuotaProject) =>
    (await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body.usage as {
      today: number;
      this_month: number;
      this_hour: number;
    };

  it('checks few events in Redis one by one, and every accepted event reaches the shared counters', async () => {
    const project = await createQuotaProject(t, { daily_quota: 1_000_000, spike_protection: false });
    const redis = t.app.get<RedisClient>(REDIS) as RedisClient & { ingestRateLimit: () => Promise<unknown> };
    const checks = jest.spyOn(redis, 'ingestRateLimit');
    try {
      for (let i = 0; i < 200; i++) await sendEvent(t, project).expect(200);
      // The first event reads the project's limits; later ones only when the view is a second old.
      expect(checks.mock.calls.length).toBeLessThan(20);
    } finally {
      checks.mockRestore();
    }
    await eventually(async () => (await usage(project)).today === 200);
    expect(await usage(project)).toMatchObject({ today: 200, this_month: 200, this_hour: 200 });
  });

  it('stops two instances at the quota exactly once they near it', async () => {
    const other = await startTestApp({ ...RATE_LIMITS_OFF, REDIS_PREFIX: t.config.REDIS_PREFIX });
    try {
      // In memory up to 500 (the last 1,000 events of a limit are checked one by one), then in Redis.
      const project = await createQuotaProject(t, { daily_quota: 1_500, spike_protection: false });
      const statuses = new Map<number, number>();
      for (let i = 0; i < 1_600; i++) {
        const { status } = await sendEvent(i % 2 === 0 ? t : other, project);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 200: 1_500, 429: 100 });
      await eventually(async () => (await usage(project)).today === 1_500);
    } finally {
      await other.close();
    }
  });

  it('adds what it counted in memory to Redis when it shuts down', async () => {
    const instance = await startTestApp({ ...RATE_LIMITS_OFF, REDIS_PREFIX: t.config.REDIS_PREFIX });
    const project = await createQuotaProject(t, { spike_protection: false });
    const redis = t.app.get<RedisClient>(REDIS);
    const counter = new LimitKeys(t.config.REDIS_PREFIX).acceptedToday(project.id, Date.now());
    try {
      await Promise.all(Array.from({ length: 30 }, () => sendEvent(instance, project).expect(200)));
    } finally {
      await instance.close();
    }
    expect(Number(await redis.get(counter))).toBe(30);
  });
});
