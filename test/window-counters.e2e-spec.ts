/**
 * The counters of fixed windows (src/redis/window-counters.ts) against a real Redis: the one script
 * behind ingest's rate limits, quotas and category limits, the session limits, sign-in throttling
 * and the status pages' limit.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { WindowCounters } from '../src/redis/window-counters';
import { TEST_REDIS_URL } from './helpers/test-env';

describe('WindowCounters (real Redis)', () => {
  let redis: Redis;
  let counters: WindowCounters;
  // One hash tag, as the callers' keys have: a multi-key call stays in one Cluster slot.
  const base = `window-counters-test:{${randomUUID()}}`;
  let next = 0;
  const key = (): string => `${base}:${++next}`;

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
    counters = new WindowCounters(redis);
  });

  afterAll(async () => {
    const keys = await redis.keys(`${base}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  /** A TTL just set: at most `ttlMs`, and not much less (the test took a moment). */
  function expectFresh(ms: number, ttlMs: number): void {
    expect(ms).toBeGreaterThan(ttlMs - 10_000);
    expect(ms).toBeLessThanOrEqual(ttlMs);
  }

  async function count(name: string): Promise<number | null> {
    const value = await redis.get(name);
    return value === null ? null : Number(value);
  }

  describe('count', () => {
    it('counts within the limit, and expires a counter it creates after its TTL', async () => {
      const minute = key();
      for (let i = 0; i < 3; i++) {
        expect(await counters.count([{ key: minute, limit: 3, ttlMs: 90_000 }])).toEqual({
          over: 0,
          msLeft: 0,
        });
      }
      expect(await count(minute)).toBe(3);
      expectFresh(await redis.pttl(minute), 90_000);
    });

    it('keeps counting past the limit: over grows by one a request, and msLeft is the window’s', async () => {
      const minute = key();
      const window = { key: minute, limit: 2, ttlMs: 30_000 };
      await counters.count([window]);
      await counters.count([window]);
      const first = await counters.count([window]);
      const second = await counters.count([window]);
      expect(first).toMatchObject({ refusedBy: 0, over: 1 });
      expect(second).toMatchObject({ refusedBy: 0, over: 2 });
      expectFresh(second.msLeft, 30_000);
      expect(await count(minute)).toBe(4);
    });

    /** Windows of these limits, each with a counter of its own, and a reader of their counts. */
    function windowsOf(...limits: number[]) {
      const windows = limits.map((limit) => ({ key: key(), limit, ttlMs: 60_000 }));
      const counts = () => Promise.all(windows.map((window) => count(window.key)));
      return { windows, counts };
    }

    it('stops at the first window over its limit: the later ones are not counted', async () => {
      const { windows, counts } = windowsOf(1, 10);
      expect((await counters.count(windows)).refusedBy).toBeUndefined();
      expect(await counters.count(windows)).toMatchObject({ refusedBy: 0, over: 1 });
      expect(await counters.count(windows)).toMatchObject({ refusedBy: 0, over: 2 });
      expect(await counts()).toEqual([3, 1]);
    });

    it('names the later window when it is the one over its limit', async () => {
      const { windows, counts } = windowsOf(10, 1);
      await counters.count(windows);
      expect(await counters.count(windows)).toMatchObject({ refusedBy: 1, over: 1 });
      expect(await counts()).toEqual([2, 2]);
    });

    it('skips a window whose limit is 0 (off), without creating its counter', async () => {
      const { windows, counts } = windowsOf(0, 1);
      await counters.count(windows);
      expect(await counters.count(windows)).toMatchObject({ refusedBy: 1, over: 1 });
      expect(await redis.exists(windows[0].key)).toBe(0);
      expect(await counts()).toEqual([null, 2]);
    });

    it('counts an amount at once', async () => {
      const minute = key();
      expect((await counters.count([{ key: minute, limit: 10, ttlMs: 60_000 }], 4)).refusedBy).toBeUndefined();
      expect(await counters.count([{ key: minute, limit: 10, ttlMs: 60_000 }], 7)).toMatchObject({
        refusedBy: 0,
        over: 1,
      });
      expect(await count(minute)).toBe(11);
    });

    it('continues a counter already in Redis without resetting its count or its expiry', async () => {
      // What an instance of the previous release left: the same key, counted and expiring.
      const minute = key();
      await redis.set(minute, 5, 'PX', 20_000);
      expect(await counters.count([{ key: minute, limit: 6, ttlMs: 90_000 }])).toEqual({ over: 0, msLeft: 0 });
      expect(await counters.count([{ key: minute, limit: 6, ttlMs: 90_000 }])).toMatchObject({
        refusedBy: 0,
        over: 1,
      });
      expect(await count(minute)).toBe(7);
      expect(await redis.pttl(minute)).toBeLessThanOrEqual(20_000);
    });
  });

  describe('take', () => {
    it('takes what the limit has room for and counts nothing past it', async () => {
      const minute = key();
      const window = { key: minute, limit: 5, ttlMs: 60_000 };
      expect(await counters.take(window, 3)).toBe(3);
      expect(await counters.take(window, 4)).toBe(2);
      expect(await counters.take(window, 1)).toBe(0);
      expect(await count(minute)).toBe(5);
      expectFresh(await redis.pttl(minute), 60_000);
    });

    it('expires the counter it creates even when the first request asks for more than the limit', async () => {
      const minute = key();
      expect(await counters.take({ key: minute, limit: 2, ttlMs: 45_000 }, 10)).toBe(2);
      expect(await count(minute)).toBe(2);
      expectFresh(await redis.pttl(minute), 45_000);
    });

    it('does not extend the window of a counter already there', async () => {
      const minute = key();
      await redis.set(minute, 1, 'PX', 10_000);
      expect(await counters.take({ key: minute, limit: 5, ttlMs: 90_000 }, 2)).toBe(2);
      expect(await count(minute)).toBe(3);
      expect(await redis.pttl(minute)).toBeLessThanOrEqual(10_000);
    });
  });

  describe('giveBack', () => {
    it('takes counts back off every counter, never below zero', async () => {
      const [minute, hour] = [key(), key()];
      await counters.take({ key: minute, limit: 10, ttlMs: 60_000 }, 3);
      await counters.take({ key: hour, limit: 10, ttlMs: 60_000 }, 1);
      await counters.giveBack([minute, hour], 2);
      expect([await count(minute), await count(hour)]).toEqual([1, 0]);
      await counters.giveBack([minute, hour], 2);
      expect([await count(minute), await count(hour)]).toEqual([0, 0]);
      // The counter keeps its expiry: a give-back never leaves one that lives for ever.
      expect(await redis.pttl(minute)).toBeGreaterThan(0);
    });

    it('gives one back by default', async () => {
      const minute = key();
      await counters.count([{ key: minute, limit: 10, ttlMs: 60_000 }], 2);
      await counters.giveBack([minute]);
      expect(await count(minute)).toBe(1);
    });

    it('never recreates a counter that is gone', async () => {
      const gone = key();
      await counters.giveBack([gone], 3);
      expect(await redis.exists(gone)).toBe(0);
    });

    it('makes room again in the window', async () => {
      const minute = key();
      const window = { key: minute, limit: 2, ttlMs: 60_000 };
      expect(await counters.take(window, 2)).toBe(2);
      await counters.giveBack([minute], 1);
      expect(await counters.take(window, 2)).toBe(1);
    });
  });

  it('shares its script with every other WindowCounters of the client', async () => {
    const other = new WindowCounters(redis);
    const minute = key();
    await other.count([{ key: minute, limit: 5, ttlMs: 60_000 }]);
    await counters.count([{ key: minute, limit: 5, ttlMs: 60_000 }]);
    expect(await count(minute)).toBe(2);
  });
});
