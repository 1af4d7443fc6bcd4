/** The periods the API's series answer for (stats, outcomes, release health). */
export const SERIES_PERIODS = ['24h', '14d', '90d'] as const;
export type SeriesPeriod = (typeof SERIES_PERIODS)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface PeriodWindow<P extends SeriesPeriod = SeriesPeriod> {
  period: P;
  /** Hourly buckets (24h), else daily (UTC). */
  hourly: boolean;
  bucketHours: number;
  /** Start of the first bucket (aligned to the UTC hour or day). */
  from: Date;
  /** End of the last bucket: the bucket that contains `now` is the last. */
  to: Date;
  buckets: number;
}

/** Hourly buckets for a day, daily buckets beyond; the current hour or day is the last bucket. */
export function periodWindow<P extends SeriesPeriod>(period: P, now: Date): PeriodWindow<P> {
  const hourly = period === '24h';
  const size = hourly ? HOUR_MS : DAY_MS;
  const buckets = hourly ? 24 : Number(period.slice(0, -1));
  const to = new Date((Math.floor(now.getTime() / size) + 1) * size);
  return {
    period,
    hourly,
    bucketHours: size / HOUR_MS,
    from: new Date(to.getTime() - buckets * size),
    to,
    buckets,
  };
}
