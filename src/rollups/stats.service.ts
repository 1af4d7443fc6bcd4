import { Injectable } from '@nestjs/common';
import { EnvironmentRow, RollupsRepository } from './rollups.repository';
import { fillBuckets, StatsPeriod, statsWindow } from './stats-period';
import type { StatsView } from './dto/rollups.response';

export type { StatsView };

/** Event counts over time, from the hourly rollups (never from the events themselves). */
@Injectable()
export class StatsService {
  constructor(private readonly rollups: RollupsRepository) {}

  async stats(
    scope: 'issue' | 'project',
    id: number,
    options: { period?: StatsPeriod; environment?: string },
    now = new Date(),
  ): Promise<StatsView> {
    const window = statsWindow(options.period ?? '24h', now);
    const counts = await this.rollups.counts(scope, id, window, options.environment);
    return { period: window.period, interval: window.interval, buckets: fillBuckets(window, counts) };
  }

  environments(projectId: number): Promise<EnvironmentRow[]> {
    return this.rollups.environments(projectId);
  }
}
