import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { withDeadline } from '../../common/deadline';
import { RepeatedLog } from '../../common/repeated-log';
import { AppConfig } from '../../config/app-config';
import { REDIS, RedisClient } from '../../redis/redis.module';
import { WindowCounters, WindowVerdict } from '../../redis/window-counters';
import { clientAddressKey } from '../../users/login-throttle.service';

const WINDOW_MS = 60_000;
const REDIS_DEADLINE_MS = 1_000;

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
  private readonly windows: WindowCounters | undefined;

  constructor(config: AppConfig, @Optional() @Inject(REDIS) redis?: RedisClient) {
    // The hash tag keeps every counter in one slot should Redis become a cluster.
    this.prefix = `${config.REDIS_PREFIX}:{status-page}`;
    this.limit = config.STATUS_PAGE_REQUESTS_PER_MINUTE;
    this.windows = redis && new WindowCounters(redis);
  }

  async take(ip: string | undefined): Promise<StatusPageVerdict> {
    if (this.limit === 0 || !this.windows) return { allowed: true };
    let verdict: WindowVerdict;
    try {
      // Fixed from the address's first request of the window (the key does not name a minute).
      const window = { key: `${this.prefix}:${clientAddressKey(ip)}`, limit: this.limit, ttlMs: WINDOW_MS };
      verdict = await withDeadline(
        this.windows.count([window]),
        REDIS_DEADLINE_MS,
        `Redis did not answer within ${REDIS_DEADLINE_MS} ms`,
      );
    } catch (error) {
      this.log.warn('unavailable', `status page requests not counted: ${(error as Error).message}`);
      return { allowed: true };
    }
    if (verdict.refusedBy === undefined) return { allowed: true };
    if (verdict.over === 1) {
      this.log.warn(
        `over:${clientAddressKey(ip)}`,
        `status pages: more than ${this.limit} requests a minute from ${clientAddressKey(ip)}, refused until the minute ends`,
      );
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(verdict.msLeft / 1000)) };
  }
}
