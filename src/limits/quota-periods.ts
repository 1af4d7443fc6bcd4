/**
 * The periods quotas and spike protection count in (pure): UTC days, UTC months and UTC hours, and
 * the spike protection limit derived from a project's recent hourly volume.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** The hours the spike protection baseline averages over: the last 7 days. */
export const BASELINE_HOURS = 7 * 24;

/** Rate limit counters outlive their window a little, so that an instance whose clock is behind still finds them. */
export const EXPIRY_SLACK_MS = 60_000;

export function minuteStart(now: number): number {
  return now - (now % MINUTE_MS);
}

export function hourStart(now: number): number {
  return now - (now % HOUR_MS);
}

export function dayStart(now: number): number {
  return now - (now % DAY_MS);
}

export function monthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

export function nextMonthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** Why ingest refuses a project's events beyond the fixed rate limits: the `X-Sentry-Rate-Limits` reason code. */
export type QuotaReason = 'daily_quota' | 'monthly_quota' | 'spike_protection';

/** When the period that refused an event started, in epoch milliseconds. */
export function periodStart(reason: QuotaReason, now: number): number {
  switch (reason) {
    case 'daily_quota':
      return dayStart(now);
    case 'monthly_quota':
      return monthStart(now);
    case 'spike_protection':
      return hourStart(now);
  }
}

/** When the period that refused an event ends, in epoch milliseconds. */
export function periodEnd(reason: QuotaReason, now: number): number {
  switch (reason) {
    case 'daily_quota':
      return dayStart(now) + DAY_MS;
    case 'monthly_quota':
      return nextMonthStart(now);
    case 'spike_protection':
      return hourStart(now) + HOUR_MS;
  }
}

export interface SpikeLimitInputs {
  /** Events accepted in the BASELINE_HOURS whole hours before the current one. */
  recentEvents: number;
  /** How many of those hours the project existed (at least 1, at most BASELINE_HOURS). */
  hours: number;
  multiplier: number;
  /** The limit never goes below this, so a quiet or new project can still report a real incident. */
  floor: number;
}

/**
 * Events per UTC hour a project may send before spike protection engages:
 * `max(floor, ceil(multiplier × recentEvents / hours))`.
 */
export function spikeLimit({ recentEvents, hours, multiplier, floor }: SpikeLimitInputs): number {
  const average = recentEvents / Math.min(BASELINE_HOURS, Math.max(1, hours));
  return Math.max(floor, Math.ceil(multiplier * average));
}

/** The hours a project created at `createdAt` existed in the baseline window before the hour of `now`. */
export function baselineHours(createdAt: number, now: number): number {
  const hours = Math.ceil((hourStart(now) - createdAt) / HOUR_MS);
  return Math.min(BASELINE_HOURS, Math.max(1, hours));
}
