import { baselineHours, monthStart, nextMonthStart, periodEnd, spikeLimit } from './quota-periods';

describe('quota periods', () => {
  const at = Date.parse('2026-02-28T23:59:30Z');

  it('ends a daily quota at the next UTC midnight and a monthly one on the first of the next month', () => {
    expect(new Date(periodEnd('daily_quota', at)).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(new Date(periodEnd('monthly_quota', at)).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(new Date(periodEnd('spike_protection', at)).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(new Date(monthStart(at)).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(new Date(nextMonthStart(Date.parse('2026-12-15T10:00:00Z'))).toISOString()).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });

  it('derives the spike limit from the recent hourly average, never below the floor', () => {
    expect(spikeLimit({ recentEvents: 168_000, hours: 168, multiplier: 10, floor: 1000 })).toBe(10_000);
    expect(spikeLimit({ recentEvents: 100, hours: 168, multiplier: 10, floor: 1000 })).toBe(1000);
    // A project two hours old is averaged over its two hours, not diluted over a week.
    expect(spikeLimit({ recentEvents: 4000, hours: 2, multiplier: 10, floor: 1000 })).toBe(20_000);
    expect(spikeLimit({ recentEvents: 5, hours: 0, multiplier: 3, floor: 1 })).toBe(15);
  });

  it('counts the whole hours a project existed in the window', () => {
    const now = Date.parse('2026-03-10T12:30:00Z');
    expect(baselineHours(Date.parse('2026-03-10T12:10:00Z'), now)).toBe(1);
    expect(baselineHours(Date.parse('2026-03-10T09:10:00Z'), now)).toBe(3);
    expect(baselineHours(Date.parse('2025-01-01T00:00:00Z'), now)).toBe(168);
  });
});
