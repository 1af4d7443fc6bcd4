/**
 * The figures of release health from counts (pure). Percentages are not rounded: the API answers
 * what the counts say, the dashboard rounds.
 */
import { periodWindow } from '../../common/period-window';
import type { HealthPeriod } from '../dto/release-health.response';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface HealthCounts {
  sessions: number;
  errored: number;
  abnormal: number;
  crashed: number;
  users: number;
  crashed_users: number;
}

export const NO_COUNTS: HealthCounts = {
  sessions: 0,
  errored: 0,
  abnormal: 0,
  crashed: 0,
  users: 0,
  crashed_users: 0,
};

export function percentOf(part: number, whole: number): number | null {
  return whole > 0 ? (part / whole) * 100 : null;
}

export function crashFree(crashed: number, all: number): number | null {
  return all > 0 ? ((all - crashed) / all) * 100 : null;
}

export interface HealthWindow {
  period: HealthPeriod;
  interval: 'hour' | 'day';
  bucketHours: number;
  from: Date;
  to: Date;
  buckets: number;
}

/** Hourly buckets for a day, daily (UTC) beyond; the bucket holding `now` is the last. */
export function healthWindow(period: HealthPeriod, now: Date): HealthWindow {
  const { hourly, ...window } = periodWindow(period, now);
  return { ...window, interval: hourly ? 'hour' : 'day' };
}

/** The last 24 hours, by whole hours (the current one included): what adoption compares. */
export function adoptionWindow(now: Date): { from: Date; to: Date } {
  const to = new Date((Math.floor(now.getTime() / HOUR_MS) + 1) * HOUR_MS);
  return { from: new Date(to.getTime() - DAY_MS), to };
}

/** Bucket starts of the window, in order. */
export function bucketStarts(window: HealthWindow): Date[] {
  const size = window.bucketHours * HOUR_MS;
  return Array.from({ length: window.buckets }, (_, index) => new Date(window.from.getTime() + index * size));
}
