import { fillBuckets, statsWindow } from './stats-period';

describe('statsWindow', () => {
  const now = new Date('2026-03-10T15:42:07.123Z');

  it('cuts a day into 24 hourly buckets ending with the current hour', () => {
    const window = statsWindow('24h', now);
    expect(window.interval).toBe('1h');
    expect(window.from.toISOString()).toBe('2026-03-09T16:00:00.000Z');
    expect(window.to.toISOString()).toBe('2026-03-10T16:00:00.000Z');
    expect(window.buckets).toBe(24);
  });

  it('cuts 14 and 90 days into UTC days ending with today', () => {
    const fortnight = statsWindow('14d', now);
    expect(fortnight.interval).toBe('1d');
    expect(fortnight.from.toISOString()).toBe('2026-02-25T00:00:00.000Z');
    expect(fortnight.to.toISOString()).toBe('2026-03-11T00:00:00.000Z');
    const quarter = statsWindow('90d', now);
    expect(quarter.buckets).toBe(90);
    expect(quarter.from.toISOString()).toBe('2025-12-11T00:00:00.000Z');
  });
});

describe('fillBuckets', () => {
  it('puts counts in their buckets and zero elsewhere', () => {
    const window = statsWindow('14d', new Date('2026-03-10T15:00:00Z'));
    const buckets = fillBuckets(window, [
      { start: new Date('2026-03-10T00:00:00Z'), count: 7 },
      { start: new Date('2026-02-25T00:00:00Z'), count: 2 },
    ]);
    expect(buckets).toHaveLength(14);
    expect(buckets[0]).toEqual({ start: '2026-02-25T00:00:00.000Z', count: 2 });
    expect(buckets[13]).toEqual({ start: '2026-03-10T00:00:00.000Z', count: 7 });
    expect(buckets.slice(1, 13).every((bucket) => bucket.count === 0)).toBe(true);
  });
});
