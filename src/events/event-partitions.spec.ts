import fc from 'fast-check';
import { PART_SPAN_DAYS, partDay, utcDay } from './event-partitions';

const DAY_MS = 86_400_000;

describe('partDay', () => {
  it('is the last day of a span of seven days, the same for every arrival of the span', () => {
    // 1970-01-01 is day 0: days 0–6 share day 6, days 7–13 share day 13.
    expect(partDay(new Date('1970-01-01T00:00:00Z'))).toBe('1970-01-07');
    expect(partDay(new Date('1970-01-07T23:59:59.999Z'))).toBe('1970-01-07');
    expect(partDay(new Date('1970-01-08T00:00:00Z'))).toBe('1970-01-14');
    expect(partDay(new Date('2026-11-24T12:00:00Z'))).toBe(partDay(new Date('2026-11-24T00:00:00Z')));
  });

  it('never falls before the arrival day, nor a span or more after it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => {
        const arrival = utcDay(new Date(ms));
        const part = partDay(new Date(ms));
        const daysAfter = (Date.parse(part) - Date.parse(arrival)) / DAY_MS;
        expect(daysAfter).toBeGreaterThanOrEqual(0);
        expect(daysAfter).toBeLessThan(PART_SPAN_DAYS);
        // Arrivals on the part's own day and the days before it within the span share it.
        expect(partDay(new Date(Date.parse(part)))).toBe(part);
      }),
    );
  });
});
