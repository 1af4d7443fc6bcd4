import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { withDeadline } from '../../common/deadline';
import { RepeatedLog } from '../../common/repeated-log';
import { AppConfig } from '../../config/app-config';
import { REDIS, RedisClient } from '../../redis/redis.module';
import { clientAddressKey } from '../../users/login-throttle.service';

const WINDOW_MS = 60_000;
const REDIS_DEADLINE_MS = 1_000;

/**
 * One round trip per request: counts it in the address's window (fixed, from its first request)
 * and answers the count and the milliseconds left. KEYS: the counter. ARGV: the window in ms.
 */
const COUNT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

type CountCommand = (key: string, windowMs: number) => Promise<[number, number]>;

/** Allowed, or refused with the seconds until the window ends. */
export type StatusPageVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Requests per client address and minute to the public status pages, counted in Redis so that
 * every api instance enforces one limit (STATUS_PAGE_REQUESTS_PER_MINUTE). Without Redis a request
 * is let through: the pages are cached per process and a slug that does not exist is remembered
 * (StatusPageService), so PostgreSQL stays protected, and a status page should stay up when it can.
 */
@Injectable()
export class StatusPageRateLimit {
  private readonly log = new RepeatedLog(new Logger('StatusPageRateLimit'), 60_000);
  private readonly prefix: string;
  private readonly limit: number;

  constructor(
    config: AppConfig,
    @Optional() @Inject(REDIS) private readonly redis?: RedisClient,
  ) {
    // The hash tag keeps every counter in one slot should Redis become a cluster.
    this.prefix = `${config.REDIS_PREFIX}:{status-page}`;
    this.limit = config.STATUS_PAGE_REQUESTS_PER_MINUTE;
    if (redis && !('statusPageCount' in redis)) {
      redis.defineCommand('statusPageCount', { numberOfKeys: 1, lua: COUNT_SCRIPT });
    }
  }

  async take(ip: string | undefined): Promise<StatusPageVerdict> {
    if (this.limit === 0 || !this.redis) return { allowed: true };
    const redis = this.redis;
    let count: number;
    let msLeft: number;
    try {
      const command = (redis as unknown as { statusPageCount: CountCommand }).statusPageCount;
      [count, msLeft] = await withDeadline(
        command.call(redis, `${this.prefix}:${clientAddressKey(ip)}`, WINDOW_MS),
        REDIS_DEADLINE_MS,
        `Redis did not answer within ${REDIS_DEADLINE_MS} ms`,
      );
    } catch (error) {
      this.log.warn('unavailable', `status page requests not counted: ${(error as Error).message}`);
      return { allowed: true };
    }
    if (count <= this.limit) return { allowed: true };
    if (count === this.limit + 1) {
      this.log.warn(
        `over:${clientAddressKey(ip)}`,
        `status pages: more than ${this.limit} requests a minute from ${clientAddressKey(ip)}, refused until the minute ends`,
      );
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
  }
}
