import { LimitKeys } from './limit-keys';
import type { RedisClient } from '../redis/redis.module';
import { UnflushedEventCounts } from './unflushed-event-counts';

/** The events each flush handed to Redis, and a way to hold a flush's answer back. */
function recordingRedis() {
  const flushed: number[] = [];
  const pending: Array<() => void> = [];
  let hold = false;
  const redis = {
    defineCommand: () => undefined,
    ingestCountFlush: (...args: Array<string | number>) => {
      flushed.push(Number(args[4]));
      const reply = [10, 10, 10, -1, -1, 0];
      if (!hold) return Promise.resolve(reply);
      return new Promise<number[]>((resolve) => pending.push(() => resolve(reply)));
    },
  };
  return {
    redis: redis as unknown as RedisClient,
    flushed,
    holdAnswers: (on: boolean) => (hold = on),
    answerAll: () => pending.splice(0).forEach((answer) => answer()),
  };
}

const NOW = Date.parse('2031-01-01T10:00:00Z');
const FAR_BELOW = { today: 0, thisMonth: 0, thisHour: 0, daily: -1, monthly: -1, spike: 0, readAt: NOW };

describe('UnflushedEventCounts.giveBack', () => {
  it('takes a count given back off the unflushed ones', async () => {
    const { redis, flushed } = recordingRedis();
    const counts = new UnflushedEventCounts(redis, new LimitKeys('t'));
    counts.settle(1, NOW, 0, FAR_BELOW);
    for (let i = 0; i < 3; i++) expect(counts.tryTake(1, NOW)).toBe(true);
    expect(counts.giveBack(1, NOW)).toBe(true);
    await counts.stop();
    expect(flushed).toEqual([2]);
  });

  it('owes a count given back while the counts are in flight to the next flush, once', async () => {
    const { redis, flushed, holdAnswers, answerAll } = recordingRedis();
    const counts = new UnflushedEventCounts(redis, new LimitKeys('t'));
    counts.settle(1, NOW, 0, FAR_BELOW);
    counts.tryTake(1, NOW);
    counts.tryTake(1, NOW);
    holdAnswers(true);
    const inFlight = counts.flush();
    expect(counts.giveBack(1, NOW)).toBe(true);
    holdAnswers(false);
    answerAll();
    await inFlight;
    await counts.stop();
    expect(flushed).toEqual([2, -1]);
  });

  it('leaves the give-back to Redis when this process holds no count of that hour', () => {
    const { redis } = recordingRedis();
    const counts = new UnflushedEventCounts(redis, new LimitKeys('t'));
    expect(counts.giveBack(1, NOW)).toBe(false);
  });

  it('hands no debit to a check in Redis, which only adds', () => {
    const { redis } = recordingRedis();
    const counts = new UnflushedEventCounts(redis, new LimitKeys('t'));
    counts.settle(1, NOW, 0, FAR_BELOW);
    counts.tryTake(1, NOW);
    void counts.flush();
    counts.giveBack(1, NOW);
    expect(counts.handOver(1, NOW)).toBe(0);
  });
});
