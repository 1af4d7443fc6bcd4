import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { REDIS, RedisClient } from '../redis/redis.module';
import { WINDOW_LUA, WindowCounters } from '../redis/window-counters';
import { LimitKeys } from './limit-keys';
import { DAY_MS, EXPIRY_SLACK_MS, HOUR_MS, MINUTE_MS, nextMonthStart, periodEnd, periodStart, QuotaReason } from './quota-periods';
import { UnflushedEventCounts, viewOf } from './unflushed-event-counts';

/**
 * Every limit on a project's events in one script call per event (one round trip), shared by every
 * api instance through Redis:
 *
 * 1. the fixed windows of MAX_EVENTS_PER_MINUTE and MAX_EVENTS_PER_HOUR (window_count of WINDOW_LUA:
 *    an event the minute rejects does not use up the hour's allowance);
 * 2. the project's quotas and spike protection limit, read from its limits hash (written by the
 *    settings API and the minute job, docs/data-protection.md): compared with the events accepted in
 *    the UTC day, month and hour, which count only events that pass all three.
 *
 * With both windows off, a project far below its limits is counted in memory instead
 * (UnflushedEventCounts); the events this process accepted so and has not flushed yet are added to
 * the counters first, so that the check counts them.
 *
 * KEYS: minute, hour, limits hash, accepted today, this month, this hour, the hour's spike hash.
 * ARGV: minute limit, hour limit, minute TTL, hour TTL, now, spike TTL, day TTL, month TTL,
 * accepted-hour TTL, unflushed events. A quota of -1 (or none) is off, a spike limit of 0 (or none).
 * Returns {0, 0, today, this month, this hour, daily quota, monthly quota, spike limit} allowed;
 * {1|2, over} minute|hour limit; {3, 0} daily quota; {4, 0} monthly quota; {5, dropped this hour}
 * spike protection.
 */
const RATE_LIMIT_SCRIPT = `${WINDOW_LUA}
local windows = {{KEYS[1], ARGV[1], ARGV[3]}, {KEYS[2], ARGV[2], ARGV[4]}}
local window, over = window_count(windows, 1)
if window > 0 then return {window, over} end
local unflushed = tonumber(ARGV[10])
if unflushed > 0 then
  for i = 4, 6 do window_add(KEYS[i], unflushed, ARGV[i + 3]) end
end
local limits = redis.call('HMGET', KEYS[3], 'd', 'mo', 'sp')
local daily = tonumber(limits[1]) or -1
local monthly = tonumber(limits[2]) or -1
local spike = tonumber(limits[3]) or 0
if daily >= 0 and (tonumber(redis.call('GET', KEYS[4])) or 0) >= daily then return {3, 0} end
if monthly >= 0 and (tonumber(redis.call('GET', KEYS[5])) or 0) >= monthly then return {4, 0} end
if spike > 0 and (tonumber(redis.call('GET', KEYS[6])) or 0) >= spike then
  redis.call('HSETNX', KEYS[7], 'since', ARGV[5])
  redis.call('HSET', KEYS[7], 'limit', spike)
  local dropped = redis.call('HINCRBY', KEYS[7], 'dropped', 1)
  if dropped == 1 then redis.call('PEXPIRE', KEYS[7], ARGV[6]) end
  return {5, dropped}
end
local counts = {}
for i = 4, 6 do counts[i - 3] = window_add(KEYS[i], 1, ARGV[i + 3]) end
return {0, 0, counts[1], counts[2], counts[3], daily, monthly, spike}
`;

export type RateLimitDecision =
  | { allowed: true }
  | { allowed: false; window: 'minute' | 'hour'; retryAfterSeconds: number; limit: number; over: number }
  | { allowed: false; reason: QuotaReason; retryAfterSeconds: number; dropped: number };

type RateLimitCommand = (...args: Array<string | number>) => Promise<number[]>;

const QUOTA_VERDICTS: Record<number, QuotaReason> = {
  3: 'daily_quota',
  4: 'monthly_quota',
  5: 'spike_protection',
};

@Injectable()
export class IngestRateLimiter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('IngestRateLimiter');
  private readonly minuteLimit: number;
  private readonly hourLimit: number;
  private readonly keys: LimitKeys;
  private readonly inMemory: UnflushedEventCounts;
  private readonly windows: WindowCounters;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.minuteLimit = config.MAX_EVENTS_PER_MINUTE;
    this.hourLimit = config.MAX_EVENTS_PER_HOUR;
    this.keys = new LimitKeys(config.REDIS_PREFIX);
    this.inMemory = new UnflushedEventCounts(this.redis, this.keys);
    if (!('ingestRateLimit' in this.redis)) {
      this.redis.defineCommand('ingestRateLimit', { numberOfKeys: 7, lua: RATE_LIMIT_SCRIPT });
    }
    this.windows = new WindowCounters(this.redis);
  }

  /** Whether the fixed windows are on (quotas and spike protection are per project). */
  get enabled(): boolean {
    return this.minuteLimit > 0 || this.hourLimit > 0;
  }

  /** The counts accepted in memory reach Redis before its client closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.inMemory.stop();
  }

  /**
   * Counts one event in memory when that is enough: the fixed windows are off (they count every
   * event in Redis) and the project is far below its quotas and spike limit. False: call `take`.
   */
  takeInMemory(projectId: number, now: number): boolean {
    return !this.enabled && this.inMemory.tryTake(projectId, now);
  }

  /**
   * Counts one event for the project in Redis (EventLimits tries `takeInMemory` first). Rejects when
   * Redis does not answer: the caller fails open.
   */
  async take(projectId: number, now = Date.now()): Promise<RateLimitDecision> {
    const handedOver = this.enabled ? 0 : this.inMemory.handOver(projectId, now);
    let reply: number[];
    try {
      reply = await this.check(projectId, now, handedOver);
    } catch (error) {
      this.inMemory.restore(projectId, now, handedOver);
      throw error;
    }
    const [verdict, over] = reply;
    this.inMemory.settle(projectId, now, handedOver, verdict === 0 ? viewOf(reply.slice(2), now) : undefined);
    return this.decision(projectId, now, verdict, over);
  }

  private check(projectId: number, now: number, handedOver: number): Promise<number[]> {
    const minuteStart = now - (now % MINUTE_MS);
    const hourStart = now - (now % HOUR_MS);
    const dayStart = now - (now % DAY_MS);
    const command = (this.redis as unknown as { ingestRateLimit: RateLimitCommand }).ingestRateLimit;
    return command.call(
      this.redis,
      this.keys.minute(projectId, minuteStart),
      this.keys.hour(projectId, hourStart),
      this.keys.limits(projectId),
      this.keys.acceptedToday(projectId, now),
      this.keys.acceptedThisMonth(projectId, now),
      this.keys.acceptedThisHour(projectId, now),
      this.keys.spike(projectId, now),
      this.minuteLimit,
      this.hourLimit,
      minuteStart + MINUTE_MS - now + EXPIRY_SLACK_MS,
      hourStart + HOUR_MS - now + EXPIRY_SLACK_MS,
      now,
      // The spike's hash and the hour's count stay an hour after it, for the minute job's last look.
      hourStart + 2 * HOUR_MS - now,
      dayStart + DAY_MS - now + HOUR_MS,
      nextMonthStart(now) - now + HOUR_MS,
      hourStart + 2 * HOUR_MS - now,
      handedOver,
    );
  }

  private decision(projectId: number, now: number, verdict: number, over: number): RateLimitDecision {
    if (verdict === 0) return { allowed: true };
    const minuteStart = now - (now % MINUTE_MS);
    const hourStart = now - (now % HOUR_MS);
    const reason = QUOTA_VERDICTS[verdict];
    if (reason !== undefined) {
      const retryAfterSeconds = Math.max(1, Math.ceil((periodEnd(reason, now) - now) / 1000));
      return { allowed: false, reason, retryAfterSeconds, dropped: over };
    }
    const window = verdict === 1 ? 'minute' : 'hour';
    const windowEnd = verdict === 1 ? minuteStart + MINUTE_MS : hourStart + HOUR_MS;
    const limit = verdict === 1 ? this.minuteLimit : this.hourLimit;
    const retryAfterSeconds = Math.max(1, Math.ceil((windowEnd - now) / 1000));
    if (over === 1) {
      this.logger.warn(
        `rate limit exceeded for project ${projectId}: more than ${limit} events per ${window}; ` +
          `dropping events for ${retryAfterSeconds} s`,
      );
    }
    return { allowed: false, window, retryAfterSeconds, limit, over };
  }

  /** Adds the project to the set of engaged spikes the minute job reads (once per spike and hour). */
  async markSpike(projectId: number): Promise<void> {
    await this.redis.sadd(this.keys.engagedProjects(), String(projectId));
  }

  /**
   * Records when a quota first refused the project's events in its period (kept until an hour after
   * the period, for the refusal API's "since"), and adds the project to the set the minute job
   * alerts from. Two commands: the set is not in the project's slot.
   */
  async markQuotaRefusal(projectId: number, reason: 'daily_quota' | 'monthly_quota', now: number): Promise<void> {
    const key = this.keys.quotaRefusal(projectId, reason, periodStart(reason, now));
    await this.redis.set(key, String(now), 'PX', periodEnd(reason, now) - now + HOUR_MS, 'NX');
    await this.redis.sadd(this.keys.refusingProjects(), String(projectId));
  }

  /**
   * Gives back one request that `take` (or `takeInMemory`) allowed at `takenAt` and that turned out
   * to hold no accepted event: only accepted events count. Its keys outlive their windows, so they
   * are still there; a counter is never taken below zero. Call it once per counted request.
   */
  async giveBack(projectId: number, takenAt: number): Promise<void> {
    if (!this.enabled && this.inMemory.giveBack(projectId, takenAt)) return;
    const keys: string[] = [];
    if (this.minuteLimit > 0) keys.push(this.keys.minute(projectId, takenAt - (takenAt % MINUTE_MS)));
    if (this.hourLimit > 0) keys.push(this.keys.hour(projectId, takenAt - (takenAt % HOUR_MS)));
    keys.push(
      this.keys.acceptedToday(projectId, takenAt),
      this.keys.acceptedThisMonth(projectId, takenAt),
      this.keys.acceptedThisHour(projectId, takenAt),
    );
    await this.windows.giveBack(keys);
  }
}
