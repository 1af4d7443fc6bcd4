import { Injectable } from '@nestjs/common';
import { RollupsRepository } from '../rollups/rollups.repository';
import { fillBuckets, StatsPeriod, statsWindow } from '../rollups/stats-period';
import type { OutcomeBucket, OutcomesView } from './dto/outcomes.response';
import { OutcomesRepository } from './outcomes.repository';

export type { OutcomesView };

/**
 * A project's outcomes over a period. Accepted errors are the events the hourly rollups counted
 * (counting them again at ingest would cost a Redis command per envelope); the rest comes from
 * `outcomes_hourly`, which lags by up to a minute (the fold's interval).
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
      this.rollups.counts('project', projectId, window, undefined),
      this.outcomes.totals(projectId, window),
      this.outcomes.buckets(projectId, window),
    ]);
    const series: OutcomeBucket[] = fillBuckets(window, accepted).map(({ start, count }) => ({
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
          ? [{ outcome: 'accepted' as const, category: 'error', reason: null, quantity: acceptedTotal }]
          : []),
        ...totals,
      ].sort((a, b) => b.quantity - a.quantity),
      series,
    };
  }
}
