import {
  describeSchedule,
  expectedBetween,
  nextExpected,
  normalCrontab,
  timeInWords,
  validSchedule,
  validTimezone,
} from './cron-schedule';

const at = (iso: string) => new Date(iso);
const next = (value: string, timezone: string, from: string) =>
  nextExpected({ type: 'crontab', value }, timezone, at(from)).toISOString();

describe('cron schedules', () => {
  it('takes the next matching minute strictly after the reference minute', () => {
    expect(next('*/5 * * * *', 'UTC', '2026-11-26T10:00:00Z')).toBe('2026-11-26T10:05:00.000Z');
    expect(next('*/5 * * * *', 'UTC', '2026-11-26T10:04:59.900Z')).toBe('2026-11-26T10:05:00.000Z');
    expect(next('0 9 * * 1', 'UTC', '2026-11-26T10:00:00Z')).toBe('2026-11-30T09:00:00.000Z');
    expect(next('@daily', 'UTC', '2026-11-26T10:00:00Z')).toBe('2026-11-27T00:00:00.000Z');
  });

  it('evaluates a crontab in the monitor timezone', () => {
    expect(next('0 9 * * *', 'Europe/Berlin', '2026-11-26T10:00:00Z')).toBe('2026-11-27T08:00:00.000Z');
    expect(next('0 9 * * *', 'America/New_York', '2026-11-26T10:00:00Z')).toBe('2026-11-26T14:00:00.000Z');
  });

  it('runs a time that DST skips at the next time that exists (spring forward)', () => {
    // Europe/Berlin: 2027-03-28 02:00 CET jumps to 03:00 CEST.
    expect(next('30 2 * * *', 'Europe/Berlin', '2027-03-27T12:00:00Z')).toBe('2027-03-28T01:30:00.000Z');
    expect(next('30 2 * * *', 'Europe/Berlin', '2027-03-28T02:00:00Z')).toBe('2027-03-29T00:30:00.000Z');
    // America/New_York: 2027-03-14 02:00 EST jumps to 03:00 EDT.
    expect(next('30 2 * * *', 'America/New_York', '2027-03-13T12:00:00Z')).toBe('2027-03-14T07:30:00.000Z');
    // A schedule away from the gap keeps its wall-clock time across the change.
    expect(next('0 9 * * *', 'America/New_York', '2027-03-13T15:00:00Z')).toBe('2027-03-14T13:00:00.000Z');
  });

  it('runs a time that DST repeats once (fall back)', () => {
    // Europe/Berlin: 2027-10-31 03:00 CEST goes back to 02:00 CET; 02:30 happens twice.
    const runs = expectedBetween(
      { type: 'crontab', value: '30 2 * * *' },
      'Europe/Berlin',
      at('2027-10-30T12:00:00Z'),
      at('2027-11-01T12:00:00Z'),
      10,
    ).map((date) => date.toISOString());
    expect(runs).toEqual(['2027-10-31T00:30:00.000Z', '2027-11-01T01:30:00.000Z']);
    // America/New_York: 2027-11-07 02:00 EDT goes back to 01:00 EST.
    expect(next('30 1 * * *', 'America/New_York', '2027-11-06T12:00:00Z')).toBe('2027-11-07T05:30:00.000Z');
    expect(next('30 1 * * *', 'America/New_York', '2027-11-07T05:31:00Z')).toBe('2027-11-08T06:30:00.000Z');
  });

  it('adds intervals to the wall clock of the timezone', () => {
    const interval = (value: number, unit: 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year') =>
      ({ type: 'interval', value, unit }) as const;
    expect(nextExpected(interval(10, 'minute'), 'UTC', at('2026-11-26T10:03:30Z')).toISOString()).toBe(
      '2026-11-26T10:13:00.000Z',
    );
    expect(nextExpected(interval(2, 'hour'), 'UTC', at('2026-11-26T10:03:00Z')).toISOString()).toBe(
      '2026-11-26T12:03:00.000Z',
    );
    // A day across spring forward is 23 hours long in Berlin.
    expect(nextExpected(interval(1, 'day'), 'Europe/Berlin', at('2027-03-27T08:00:00Z')).toISOString()).toBe(
      '2027-03-28T07:00:00.000Z',
    );
    expect(
      nextExpected(interval(1, 'week'), 'America/New_York', at('2027-11-01T14:00:00Z')).toISOString(),
    ).toBe('2027-11-08T15:00:00.000Z');
    // The 31st plus a month is the last day of the next month.
    expect(nextExpected(interval(1, 'month'), 'UTC', at('2027-01-31T06:00:00Z')).toISOString()).toBe(
      '2027-02-28T06:00:00.000Z',
    );
    expect(nextExpected(interval(1, 'year'), 'UTC', at('2028-02-29T06:00:00Z')).toISOString()).toBe(
      '2029-02-28T06:00:00.000Z',
    );
  });

  it('lists the expected times of a gap, in order and bounded', () => {
    const runs = expectedBetween(
      { type: 'crontab', value: '* * * * *' },
      'UTC',
      at('2026-11-26T10:00:00Z'),
      at('2026-11-26T11:00:00Z'),
      5,
    );
    expect(runs.map((date) => date.toISOString())).toEqual([
      '2026-11-26T10:01:00.000Z',
      '2026-11-26T10:02:00.000Z',
      '2026-11-26T10:03:00.000Z',
      '2026-11-26T10:04:00.000Z',
      '2026-11-26T10:05:00.000Z',
    ]);
  });

  it('refuses what is not a schedule, with the reason', () => {
    expect(() => normalCrontab('61 * * * *')).toThrow(/invalid crontab "61 \* \* \* \*": .*61/);
    expect(() => normalCrontab('* * *')).toThrow(/five fields/);
    expect(() => normalCrontab('0 0 * * * *')).toThrow(/five fields/);
    expect(() => validSchedule({ type: 'interval', value: 0, unit: 'minute' })).toThrow(/from 1/);
    expect(() => validSchedule({ type: 'interval', value: 5, unit: 'fortnight' })).toThrow(/unit must be/);
    expect(() => validSchedule({ type: 'weekly' })).toThrow(/crontab.*interval/);
    expect(() => validTimezone('Mars/Olympus_Mons')).toThrow(/unknown timezone/);
    expect(validSchedule({ type: 'interval', value: '5', unit: 'hour' })).toEqual({
      type: 'interval',
      value: 5,
      unit: 'hour',
    });
  });

  it('describes common schedules in words', () => {
    expect(describeSchedule({ type: 'crontab', value: '*/5 * * * *' })).toBe('Every 5 minutes');
    expect(describeSchedule({ type: 'crontab', value: '* * * * *' })).toBe('Every minute');
    expect(describeSchedule({ type: 'crontab', value: '0 9 * * 1' })).toBe('At 09:00 on Monday');
    expect(describeSchedule({ type: 'crontab', value: '30 2 * * *' })).toBe('At 02:30 every day');
    expect(describeSchedule({ type: 'crontab', value: '0 9 * * 1-5' })).toBe('At 09:00 on weekdays');
    expect(describeSchedule({ type: 'crontab', value: '5 4 1,15 * *' })).toBe('5 4 1,15 * *');
    expect(describeSchedule({ type: 'interval', value: 1, unit: 'day' })).toBe('Every day');
    expect(describeSchedule({ type: 'interval', value: 10, unit: 'minute' })).toBe('Every 10 minutes');
  });
});

describe('timeInWords', () => {
  const now = new Date('2026-12-07T16:00:00Z');

  it('says the time in the monitor’s timezone, with the date when it is not that day', () => {
    expect(timeInWords(new Date('2026-12-07T14:31:00Z'), 'UTC', now)).toBe('14:31 UTC');
    expect(timeInWords(new Date('2026-12-07T14:31:00Z'), 'Europe/Berlin', now)).toBe('15:31 Europe/Berlin');
    expect(timeInWords(new Date('2026-12-06T23:59:00Z'), 'UTC', now)).toBe('2026-12-06 23:59 UTC');
    // Already the next day in Berlin: the date of the moment, there.
    expect(timeInWords(new Date('2026-12-07T23:30:00Z'), 'Europe/Berlin', now)).toBe(
      '2026-12-08 00:30 Europe/Berlin',
    );
    expect(timeInWords(new Date('2026-12-07T00:05:00Z'), 'America/New_York', now)).toBe(
      '2026-12-06 19:05 America/New_York',
    );
  });
});
