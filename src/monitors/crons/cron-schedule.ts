import { CronExpressionParser } from 'cron-parser';
import { InvalidInputError } from '../../common/domain-errors';

/**
 * Cron monitor schedules and their arithmetic, pure: every function takes the reference time it
 * works from, so that the clock, the API and the tests agree on "now". Crontabs are evaluated by
 * cron-parser in the monitor's timezone (daylight-saving days included: a time that does not exist
 * runs at the next one that does, a time that happens twice runs once); intervals add whole units to
 * the wall-clock time in that timezone, as Sentry does.
 */

export const INTERVAL_UNITS = ['minute', 'hour', 'day', 'week', 'month', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

export type CronSchedule =
  { type: 'crontab'; value: string } | { type: 'interval'; value: number; unit: IntervalUnit };

/** Sentry's limits (minutes): a margin or a runtime of up to 28 days. */
export const MAX_MARGIN_MINUTES = 40_320;
export const MAX_RUNTIME_MINUTES = 40_320;
export const DEFAULT_MARGIN_MINUTES = 1;
export const DEFAULT_MAX_RUNTIME_MINUTES = 30;
/** Sentry accepts 1 to 720 consecutive check-ins for either threshold. */
export const MAX_THRESHOLD = 720;
/** An interval beyond this many units is not a schedule anyone runs. */
const MAX_INTERVAL_VALUE = 1_000_000;

/** The nicknames Sentry accepts, as the five-field crontabs they stand for. */
const NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export function isTimezone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The crontab with a nickname replaced; five fields, or InvalidInputError with the parser's message. */
export function normalCrontab(value: string): string {
  const trimmed = value.trim().replace(/\s+/g, ' ');
  const crontab = NICKNAMES[trimmed.toLowerCase()] ?? trimmed;
  const fields = crontab.split(' ');
  if (fields.length !== 5) {
    throw new InvalidInputError(
      `invalid crontab "${value}": a schedule has five fields (minute hour day-of-month month day-of-week)`,
    );
  }
  try {
    CronExpressionParser.parse(crontab, { strict: false });
  } catch (error) {
    throw new InvalidInputError(`invalid crontab "${value}": ${(error as Error).message}`);
  }
  return crontab;
}

/** Checks a schedule as the API and monitor_config give it; returns it normalised. */
export function validSchedule(input: unknown): CronSchedule {
  if (input === null || typeof input !== 'object') throw new InvalidInputError('schedule must be an object');
  const { type, value, unit } = input as Record<string, unknown>;
  if (type === 'crontab') {
    if (typeof value !== 'string') throw new InvalidInputError('a crontab schedule needs a string value');
    return { type, value: normalCrontab(value) };
  }
  if (type === 'interval') {
    const count = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_INTERVAL_VALUE) {
      throw new InvalidInputError(
        `an interval schedule needs a whole number of units from 1 to ${MAX_INTERVAL_VALUE}`,
      );
    }
    if (typeof unit !== 'string' || !(INTERVAL_UNITS as readonly string[]).includes(unit)) {
      throw new InvalidInputError(`interval unit must be one of ${INTERVAL_UNITS.join(', ')}`);
    }
    return { type, value: count, unit: unit as IntervalUnit };
  }
  throw new InvalidInputError('schedule type must be "crontab" or "interval"');
}

export function validTimezone(name: unknown): string {
  if (typeof name !== 'string' || !isTimezone(name)) {
    throw new InvalidInputError(
      `unknown timezone ${JSON.stringify(name)}: use an IANA name such as Europe/Berlin`,
    );
  }
  return name;
}

export function validMinutes(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInputError(`${field} must be a whole number of minutes from ${min} to ${max}`);
  }
  return value;
}

export function validThreshold(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_THRESHOLD) {
    throw new InvalidInputError(`${field} must be a whole number from 1 to ${MAX_THRESHOLD}`);
  }
  return value;
}

const MINUTE_MS = 60_000;

function truncateToMinute(at: Date): Date {
  return new Date(Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS);
}

/**
 * When the job is next expected after `reference` (a check-in's time, or the clock's). A crontab's
 * next matching minute strictly after the reference's minute; an interval's reference plus the
 * interval, from the reference's minute.
 */
export function nextExpected(schedule: CronSchedule, timezone: string, reference: Date): Date {
  const from = truncateToMinute(reference);
  if (schedule.type === 'crontab') {
    const expression = CronExpressionParser.parse(normalCrontab(schedule.value), {
      currentDate: from,
      tz: timezone,
      strict: false,
    });
    return expression.next().toDate();
  }
  return addInterval(from, schedule.value, schedule.unit, timezone);
}

/** Expected times after `after` up to and including `until`, at most `limit` of them, in order. */
export function expectedBetween(
  schedule: CronSchedule,
  timezone: string,
  after: Date,
  until: Date,
  limit: number,
): Date[] {
  const times: Date[] = [];
  let at = after;
  while (times.length < limit) {
    at = nextExpected(schedule, timezone, at);
    if (at.getTime() > until.getTime()) break;
    times.push(at);
  }
  return times;
}

function addInterval(from: Date, value: number, unit: IntervalUnit, timezone: string): Date {
  switch (unit) {
    case 'minute':
      return new Date(from.getTime() + value * MINUTE_MS);
    case 'hour':
      return new Date(from.getTime() + value * 60 * MINUTE_MS);
    case 'day':
    case 'week':
    case 'month':
    case 'year': {
      const local = wallClock(from, timezone);
      if (unit === 'day') local.day += value;
      else if (unit === 'week') local.day += 7 * value;
      else {
        local.month += unit === 'month' ? value : 12 * value;
        // As relativedelta: the 31st plus a month is the last day of a shorter month.
        const lastDay = new Date(Date.UTC(local.year, local.month, 0)).getUTCDate();
        local.day = Math.min(local.day, lastDay);
      }
      return fromWallClock(local, timezone);
    }
  }
}

interface WallClock {
  year: number;
  /** 1-12; may overflow, Date.UTC carries it. */
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let format = formatters.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timezone, format);
  }
  return format;
}

function wallClock(at: Date, timezone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatter(timezone).formatToParts(at)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute };
}

function offsetMs(at: Date, timezone: string): number {
  const local = wallClock(at, timezone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  return asUtc - truncateToMinute(at).getTime();
}

/** The instant a wall-clock time in the timezone names; a time skipped by DST moves forward. */
function fromWallClock(local: WallClock, timezone: string): Date {
  const naive = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  let guess = naive - offsetMs(new Date(naive), timezone);
  guess = naive - offsetMs(new Date(guess), timezone);
  return new Date(guess);
}

/**
 * A moment as a monitor's issue says it: the wall-clock time in the monitor's timezone, named after
 * it (`14:31 UTC`, `15:31 Europe/Berlin`), with the date first (`2026-12-06 23:59 UTC`) unless
 * the moment is on the same day as `now` there.
 */
export function timeInWords(at: Date, timezone: string, now: Date): string {
  const local = wallClock(at, timezone);
  const today = wallClock(now, timezone);
  const two = (value: number) => String(value).padStart(2, '0');
  const time = `${two(local.hour)}:${two(local.minute)} ${timezone}`;
  if (local.year === today.year && local.month === today.month && local.day === today.day) return time;
  return `${local.year}-${two(local.month)}-${two(local.day)} ${time}`;
}

/** The schedule in words for the common shapes, else the crontab itself. */
export function describeSchedule(schedule: CronSchedule): string {
  if (schedule.type === 'interval') {
    return schedule.value === 1 ? `Every ${schedule.unit}` : `Every ${schedule.value} ${schedule.unit}s`;
  }
  const [minute, hour, dayOfMonth, month, dayOfWeek] = schedule.value.split(' ');
  const everyDay = dayOfMonth === '*' && month === '*';
  if (everyDay && dayOfWeek === '*' && hour === '*') {
    if (minute === '*') return 'Every minute';
    const step = /^\*\/(\d+)$/.exec(minute);
    if (step) return `Every ${step[1]} minutes`;
    if (/^\d+$/.test(minute)) return `At minute ${minute} past every hour`;
  }
  const at = /^\d+$/.test(minute) && /^\d+$/.test(hour) ? `At ${pad(hour)}:${pad(minute)}` : undefined;
  if (at && everyDay) {
    if (dayOfWeek === '*') return `${at} every day`;
    if (dayOfWeek === '1-5') return `${at} on weekdays`;
    if (/^[0-7]$/.test(dayOfWeek)) return `${at} on ${DAYS[Number(dayOfWeek) % 7]}`;
  }
  if (at && month === '*' && dayOfWeek === '*' && /^\d+$/.test(dayOfMonth)) {
    return `${at} on day ${dayOfMonth} of every month`;
  }
  if (/^\d+$/.test(minute) && everyDay && dayOfWeek === '*') {
    const step = /^\*\/(\d+)$/.exec(hour);
    if (step) return `At minute ${minute} past every ${step[1]} hours`;
  }
  return schedule.value;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function pad(value: string): string {
  return value.padStart(2, '0');
}
