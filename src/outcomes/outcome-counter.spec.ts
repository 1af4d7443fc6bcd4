import type { AppConfig } from '../config/app-config';
import type { RedisClient } from '../redis/redis.module';
import type { OutcomeCount } from './envelope-outcomes';
import { MAX_METRIC_SERIES, OutcomeCounter } from './outcome-counter';

/** A Redis whose pipelines record their commands, and answer or fail as told. */
function fakeRedis(exec: () => Promise<unknown>) {
  const sent: unknown[][] = [];
  const redis = {
    pipeline: () => {
      const commands: unknown[][] = [];
      return {
        hincrby: (...args: unknown[]) => commands.push(args),
        exec: () => {
          sent.push(...commands);
          return exec();
        },
      };
    },
  };
  return { redis: redis as unknown as RedisClient, sent };
}

const config = { REDIS_PREFIX: 'et' } as AppConfig;
const drop = (reason: string, quantity = 1): OutcomeCount => ({
  outcome: 'invalid',
  category: 'error',
  reason,
  quantity,
});

describe('OutcomeCounter', () => {
  it('adds an envelope’s counts in one pipeline to the live hash, by hour and project', () => {
    const { redis, sent } = fakeRedis(async () => [[null, 1]]);
    const counter = new OutcomeCounter(redis, config);
    counter.count(7, [drop('too_large'), drop('invalid_json', 2)], Date.parse('2026-11-26T10:30:00Z'));
    const hour = Date.parse('2026-11-26T10:00:00Z') / 3_600_000;
    expect(sent).toEqual([
      ['et:{outcomes}:live', `${hour}:7:invalid:error:too_large`, 1],
      ['et:{outcomes}:live', `${hour}:7:invalid:error:invalid_json`, 2],
    ]);
    expect([...counter.totals()]).toEqual([
      ['invalid,error,too_large', 1],
      ['invalid,error,invalid_json', 2],
    ]);
  });

  it('never throws when Redis refuses, whether the pipeline rejects or a command fails', async () => {
    for (const exec of [
      async () => Promise.reject(new Error('Connection is closed.')),
      async () => [[new Error('OOM'), null]],
    ]) {
      const counter = new OutcomeCounter(fakeRedis(exec).redis, config);
      expect(() => counter.count(1, [drop('too_large')])).not.toThrow();
      await new Promise((resolve) => setImmediate(resolve));
      expect(counter.totals().get('invalid,error,too_large')).toBe(1);
    }
  });

  it('keeps the label sets of the metric bounded, summing new ones past the bound as other', () => {
    const counter = new OutcomeCounter(fakeRedis(async () => []).redis, config);
    for (let i = 0; i < MAX_METRIC_SERIES + 50; i++) counter.count(1, [drop(`reason_${i}`)]);
    expect(counter.totals().size).toBe(MAX_METRIC_SERIES + 1);
    expect(counter.totals().get('invalid,other,other')).toBe(50);
  });
});
