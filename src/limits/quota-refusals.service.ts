import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { REDIS, RedisClient } from '../redis/redis.module';
import { LimitKeys } from './limit-keys';
import { periodEnd, periodStart, QuotaReason } from './quota-periods';

/** Whether ingest refuses a project's events now for a quota or spike protection, and for how long. */
export interface QuotaRefusal {
  reason: QuotaReason;
  /** When the first event of the period was refused; null when that was not recorded (Redis lost it). */
  since: number | null;
  /** When events are accepted again: the end of the UTC day, month or hour. */
  until: number;
  /** The quota, or the spike limit per hour. */
  limit: number;
  /** Spike protection only: the events it dropped this hour. */
  dropped: number | null;
}

/** A quota period whose refusals the minute job alerts about once. */
export interface RefusedPeriod extends QuotaRefusal {
  projectId: number;
  reason: 'daily_quota' | 'monthly_quota';
  periodStart: number;
}

/**
 * Reads, from the Redis state the limiter keeps (the limits hash, the accepted counters, the
 * hour's spike hash, the marks of first refusals), whether a project's events are refused now. The
 * comparison is the rate-limit script's: a quota refuses once its period's count reached it, spike
 * protection once the hour's did. One round trip per project, no PostgreSQL.
 */
@Injectable()
export class QuotaRefusalsService {
  private readonly keys: LimitKeys;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.keys = new LimitKeys(config.REDIS_PREFIX);
  }

  async current(projectId: number, now: number): Promise<QuotaRefusal | null> {
    const day = periodStart('daily_quota', now);
    const month = periodStart('monthly_quota', now);
    // Every key is in the project's slot (its hash tag): one pipeline on a Redis Cluster too.
    const replies = await this.redis
      .pipeline()
      .hmget(this.keys.limits(projectId), 'd', 'mo', 'sp')
      .get(this.keys.acceptedToday(projectId, now))
      .get(this.keys.acceptedThisMonth(projectId, now))
      .get(this.keys.acceptedThisHour(projectId, now))
      .hgetall(this.keys.spike(projectId, now))
      .get(this.keys.quotaRefusal(projectId, 'daily_quota', day))
      .get(this.keys.quotaRefusal(projectId, 'monthly_quota', month))
      .exec();
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (!replies || failed) throw failed ?? new Error('no answer');
    const [limits, today, thisMonth, thisHour, spike, dailyMark, monthlyMark] = replies.map(([, value]) => value) as [
      Array<string | null>,
      string | null,
      string | null,
      string | null,
      Record<string, string>,
      string | null,
      string | null,
    ];
    const daily = numberOr(limits[0], -1);
    const monthly = numberOr(limits[1], -1);
    const spikeLimit = numberOr(limits[2], 0);
    const quota = (reason: 'daily_quota' | 'monthly_quota', limit: number, mark: string | null): QuotaRefusal => ({
      reason,
      since: mark === null ? null : Number(mark),
      until: periodEnd(reason, now),
      limit,
      dropped: null,
    });
    if (daily >= 0 && numberOr(today, 0) >= daily) return quota('daily_quota', daily, dailyMark);
    if (monthly >= 0 && numberOr(thisMonth, 0) >= monthly) return quota('monthly_quota', monthly, monthlyMark);
    if (spikeLimit > 0 && numberOr(thisHour, 0) >= spikeLimit) {
      return {
        reason: 'spike_protection',
        since: spike.since === undefined ? null : Number(spike.since),
        until: periodEnd('spike_protection', now),
        limit: spikeLimit,
        dropped: numberOr(spike.dropped ?? null, 0),
      };
    }
    return null;
  }

  /**
   * The quota periods refusing events now that ingest marked (see IngestRateLimiter.markQuotaRefusal),
   * for the minute job's alerts; projects whose marks are gone leave the set.
   */
  async refusedPeriods(now: number): Promise<RefusedPeriod[]> {
    const projects = (await this.redis.smembers(this.keys.refusingProjects())).map(Number).filter(Number.isSafeInteger);
    const found: RefusedPeriod[] = [];
    for (const projectId of projects) {
      const [daily, monthly] = await Promise.all(
        (['daily_quota', 'monthly_quota'] as const).map((reason) =>
          this.redis.exists(this.keys.quotaRefusal(projectId, reason, periodStart(reason, now))),
        ),
      );
      if (daily === 0 && monthly === 0) {
        await this.redis.srem(this.keys.refusingProjects(), String(projectId));
        continue;
      }
      const refusal = await this.current(projectId, now);
      if (refusal && refusal.reason !== 'spike_protection') {
        found.push({ ...refusal, projectId, reason: refusal.reason, periodStart: periodStart(refusal.reason, now) });
      }
    }
    return found;
  }
}

function numberOr(text: string | null, fallback: number): number {
  const value = text === null ? NaN : Number(text);
  return Number.isFinite(value) ? value : fallback;
}
