import { Injectable } from '@nestjs/common';
import { RollupsRepository } from '../rollups/rollups.repository';
import { fillBuckets, StatsPeriod, statsWindow } from '../rollups/stats-period';
import type { CategoryUsage, OutcomeBucket, OutcomesView } from './dto/outcomes.response';
import { OutcomeBucketRow, OutcomesRepository, OutcomeTotalRow } from './outcomes.repository';

export type { OutcomesView };

/** The category whose acceptance is counted here: events stored as errors. */
const ACCEPTED_CATEGORY = 'error';

/**
 * A project's outcomes over a period. Accepted errors are the events the rollup fold counted by
 * hour of receipt (`project_accepted_hourly`, which no erasure changes: counting them again at
 * ingest would cost a Redis command per envelope); the rest comes from `outcomes_hourly`, which
 * lags by up to a minute (the fold's interval).
 */
@Injectable()
export class OutcomesService {
  constructor(
    private readonly outcomes: OutcomesRepository,
    private readonly rollups: RollupsRepository,
  ) {}

  async ofProject(projectId: number, period: StatsPeriod = '24h', now = new Date()): Promise<OutcomesView> {
    const window = statsWindow(period, now);
    const [accepted, totals, buckets] = await Promise.all([
      this.rollups.acceptedCounts(projectId, window),
      this.outcomes.totals(projectId, window),
      this.outcomes.buckets(projectId, window),
    ]);
    const acceptedBuckets = fillBuckets(window, accepted);
    const series: OutcomeBucket[] = acceptedBuckets.map(({ start, count }) => ({
      start,
      accepted: count,
      filtered: 0,
      rate_limited: 0,
      invalid: 0,
      client_discard: 0,
      unsupported: 0,
    }));
    const byStart = new Map(series.map((bucket) => [Date.parse(bucket.start), bucket]));
    for (const row of buckets) {
      const bucket = byStart.get(row.start.getTime());
      if (bucket) bucket[row.outcome] += row.quantity;
    }
    const acceptedTotal = series.reduce((sum, bucket) => sum + bucket.accepted, 0);
    return {
      period: window.period,
      interval: window.interval,
      accepted: acceptedTotal,
      dropped: totals.reduce((sum, row) => sum + row.quantity, 0),
      totals: [
        ...(acceptedTotal > 0
          ? [
              {
                outcome: 'accepted' as const,
                category: ACCEPTED_CATEGORY,
                reason: null,
                quantity: acceptedTotal,
              },
            ]
          : []),
        ...totals,
      ].sort((a, b) => b.quantity - a.quantity),
      series,
      categories: categoriesOf(acceptedBuckets, totals, buckets),
    };
  }
}

/**
 * Each category on its own: errors first (always, they are what this server stores), then the
 * others by how much of them was dropped. Only errors have an accepted count.
 */
function categoriesOf(
  accepted: { start: string; count: number }[],
  totals: OutcomeTotalRow[],
  buckets: OutcomeBucketRow[],
): CategoryUsage[] {
  const categories = new Map<string, CategoryUsage>();
  const of = (category: string): CategoryUsage => {
    let usage = categories.get(category);
    if (!usage) {
      const counted = category === ACCEPTED_CATEGORY;
      usage = {
        category,
        accepted: counted ? accepted.reduce((sum, bucket) => sum + bucket.count, 0) : null,
        dropped: 0,
        series: accepted.map(({ start, count }) => ({ start, accepted: counted ? count : null, dropped: 0 })),
      };
      categories.set(category, usage);
    }
    return usage;
  };
  of(ACCEPTED_CATEGORY);
  for (const row of totals) of(row.category).dropped += row.quantity;
  for (const row of buckets) {
    const start = row.start.getTime();
    const bucket = of(row.category).series.find((entry) => Date.parse(entry.start) === start);
    if (bucket) bucket.dropped += row.quantity;
  }
  return [...categories.values()].sort(
    (a, b) =>
      Number(b.category === ACCEPTED_CATEGORY) - Number(a.category === ACCEPTED_CATEGORY) ||
      b.dropped - a.dropped ||
      (a.category < b.category ? -1 : 1),
  );
}
