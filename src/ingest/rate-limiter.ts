import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { REDIS, RedisClient } from '../redis/redis.module';

/**
 * Fixed-window counters per project, shared by every api instance through Redis. One script call
 * per event (one round trip): the minute window is counted first; an event it rejects does not
 * use up the hour's allowance. The script returns how far past the limit the counter is, so the
 * caller logs only the first rejection of a window.
 *
 * KEYS: minute counter, hour counter. ARGV: minute limit, hour limit, minute TTL ms, hour TTL ms
 * (0 disables a limit). Returns {0, 0} when allowed, {1|2, over} when the minute|hour limit rejects.
 */
const RATE_LIMIT_SCRIPT = `
local minuteLimit = tonumber(ARGV[1])
local hourLimit = tonumber(ARGV[2])
if minuteLimit > 0 then
  local count = redis.call('INCR', KEYS[1])
  if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
  if count > minuteLimit then return {1, count - minuteLimit} end
end
if hourLimit > 0 then
  local count = redis.call('INCR', KEYS[2])
  if count == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
  if count > hourLimit then return {2, count - hourLimit} end
end
return {0, 0}
`;

/**
 * The data categories the event limits cover, as `X-Sentry-Rate-Limits` names them: every category
 * an SDK sends but `session` (its own limits), `monitor` (cron check-ins, which Sentry limits per
 * monitor, never with the events) and `internal` (client reports, which are not limited).
 */
export const EVENT_RATE_LIMIT_CATEGORIES = [
  'default',
  'error',
  'security',
  'attachment',
  'transaction',
  'span',
  'profile',
  'profile_chunk',
  'replay',
  'feedback',
  'log_item',
  'metric_bucket',
].join(';');

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Counters outlive their window a little, so a skewed clock on another instance still finds them. */
const EXPIRY_SLACK_MS = 60_000;

export type RateLimitDecision =
  { allowed: true } | { allowed: false; window: 'minute' | 'hour'; retryAfterSeconds: number; limit: number };

type RateLimitCommand = (
  minuteKey: string,
  hourKey: string,
  minuteLimit: number,
  hourLimit: number,
  minuteTtl: number,
  hourTtl: number,
) => Promise<[number, number]>;

@Injectable()
export class IngestRateLimiter {
  private readonly logger = new Logger('IngestRateLimiter');
  private readonly minuteLimit: number;
  private readonly hourLimit: number;
  private readonly prefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.minuteLimit = config.MAX_EVENTS_PER_MINUTE;
    this.hourLimit = config.MAX_EVENTS_PER_HOUR;
    this.prefix = `${config.REDIS_PREFIX}:ratelimit`;
    if (!('ingestRateLimit' in this.redis)) {
      this.redis.defineCommand('ingestRateLimit', { numberOfKeys: 2, lua: RATE_LIMIT_SCRIPT });
    }
  }

  get enabled(): boolean {
    return this.minuteLimit > 0 || this.hourLimit > 0;
  }

  /** Counts one event for the project. Rejects (Redis unreachable) are the caller's 503. */
  async take(projectId: number, now = Date.now()): Promise<RateLimitDecision> {
    if (!this.enabled) return { allowed: true };
    const minuteStart = now - (now % MINUTE_MS);
    const hourStart = now - (now % HOUR_MS);
    const command = (this.redis as unknown as { ingestRateLimit: RateLimitCommand }).ingestRateLimit;
    // The project id is a hash tag: one script touches both counters, which a Redis Cluster allows
    // only within one slot; different projects still spread over the cluster.
    const [verdict, over] = await command.call(
      this.redis,
      `${this.prefix}:{${projectId}}:m:${minuteStart}`,
      `${this.prefix}:{${projectId}}:h:${hourStart}`,
      this.minuteLimit,
      this.hourLimit,
      minuteStart + MINUTE_MS - now + EXPIRY_SLACK_MS,
      hourStart + HOUR_MS - now + EXPIRY_SLACK_MS,
    );
    if (verdict === 0) return { allowed: true };
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
    return { allowed: false, window, retryAfterSeconds, limit };
  }

  /**
   * Gives back one request that `take` allowed at `takenAt` (it counted in both windows, whose keys
   * outlive them by a minute, so they are still there): a request that held sessions and no event,
   * which count in their own category.
   */
  async giveBack(projectId: number, takenAt: number): Promise<void> {
    const now = takenAt;
    if (!this.enabled) return;
    const minuteStart = now - (now % MINUTE_MS);
    const hourStart = now - (now % HOUR_MS);
    const pipeline = this.redis.pipeline();
    if (this.minuteLimit > 0) pipeline.decr(`${this.prefix}:{${projectId}}:m:${minuteStart}`);
    if (this.hourLimit > 0) pipeline.decr(`${this.prefix}:{${projectId}}:h:${hourStart}`);
    const results = await pipeline.exec();
    const failed = results?.find(([error]) => error !== null)?.[0];
    if (failed) throw failed;
  }
}
