import { Inject, Injectable, Logger } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { REDIS, RedisClient } from '../redis/redis.module';
import type { OutcomeCount } from './envelope-outcomes';
import { outcomeField, outcomeKeys } from './outcome-fields';

/**
 * Label sets of `outcomes_total` this process keeps; past it, new ones are summed into
 * `category="other",reason="other"`, so that SDKs inventing reasons cannot grow the scrape.
 */
export const MAX_METRIC_SERIES = 200;

/**
 * Counts what ingest dropped, per project and hour, in Redis (a fold moves the counts into
 * PostgreSQL: OutcomeFolder), and per process for /metrics.
 *
 * Counting never holds up or changes an answer: the commands are sent, not awaited, in one
 * pipeline per envelope (most envelopes have nothing to count and send nothing). When Redis
 * refuses, the counts are lost and the loss is logged, at most once a minute.
 */
@Injectable()
export class OutcomeCounter {
  private readonly logger = new Logger('Outcomes');
  private readonly failures = new RepeatedLog(this.logger, 60_000);
  private readonly liveKey: string;
  private readonly series = new Map<string, number>();

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.liveKey = outcomeKeys(config.REDIS_PREFIX).live;
  }

  count(projectId: number, counts: readonly OutcomeCount[], now = Date.now()): void {
    if (counts.length === 0) return;
    for (const count of counts) this.addToSeries(count);
    let pipeline;
    try {
      pipeline = this.redis.pipeline();
      for (const count of counts)
        pipeline.hincrby(this.liveKey, outcomeField(projectId, now, count), count.quantity);
    } catch (error) {
      this.lost(error);
      return;
    }
    pipeline.exec().then(
      (results) => {
        const failed = results?.find(([error]) => error !== null)?.[0];
        if (failed) this.lost(failed);
      },
      (error: unknown) => this.lost(error),
    );
  }

  /** This process's totals by `outcome,category,reason` (the label values of `outcomes_total`). */
  totals(): ReadonlyMap<string, number> {
    return this.series;
  }

  private addToSeries(count: OutcomeCount): void {
    let key = `${count.outcome},${count.category},${count.reason}`;
    if (!this.series.has(key) && this.series.size >= MAX_METRIC_SERIES) key = `${count.outcome},other,other`;
    this.series.set(key, (this.series.get(key) ?? 0) + count.quantity);
  }

  private lost(error: unknown): void {
    this.failures.warn('redis', `outcomes not counted, Redis refused: ${(error as Error).message}`);
  }
}
