import { periodWindow } from '../common/period-window';
/** The periods the stats endpoints answer, and how each is cut into buckets. */
export const STATS_PERIODS = ['24h', '14d', '90d'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];

const HOUR_MS = 3_600_000;

export interface StatsWindow {
  period: StatsPeriod;
  interval: '1h' | '1d';
  bucketHours: number;
  /** Start of the first bucket (aligned to the UTC hour or day). */
  from: Date;
  /** End of the last bucket: the bucket that contains `now` is the last. */
  to: Date;
  buckets: number;
}

/** Hourly buckets for a day, daily buckets beyond; the current hour or day is the last bucket. */
export function statsWindow(period: StatsPeriod, now: Date): StatsWindow {
  const { hourly, ...window } = periodWindow(period, now);
  return { ...window, interval: hourly ? '1h' : '1d' };
}

/** Every bucket of the window, zero where the rollups have nothing. */
export function fillBuckets(
  window: StatsWindow,
  counts: { start: Date; count: number }[],
): { start: string; count: number }[] {
  const byStart = new Map(counts.map((row) => [row.start.getTime(), row.count]));
  const size = window.bucketHours * HOUR_MS;
  return Array.from({ length: window.buckets }, (_, index) => {
    const start = window.from.getTime() + index * size;
    return { start: new Date(start).toISOString(), count: byStart.get(start) ?? 0 };
  });
}
