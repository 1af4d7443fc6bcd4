import {
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  Optional,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { Response } from 'express';
import { isIPv6 } from 'node:net';
import { AppConfig } from '../config/app-config';
import { sha256Hex } from '../common/crypto';
import { REDIS, RedisClient } from '../redis/redis.module';
import { WindowCounters, WindowVerdict } from '../redis/window-counters';

/**
 * The shared client fails commands on its own when Redis hangs; this bound keeps sign-in's promise
 * (an answer within a few seconds, never a hang) whatever that client's settings become.
 */
const REDIS_DEADLINE_MS = 3_000;

export const UNAVAILABLE_MESSAGE = 'sign-in is temporarily unavailable, try again shortly';

/** Normalised as UsersService looks accounts up, so every spelling of an e-mail shares one count. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * What the address limit counts: an IPv4 address (also when written IPv4-mapped), or the /64 of an
 * IPv6 address, since one subscriber usually holds a whole /64 and could otherwise rotate through it.
 */
export function clientAddressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (v4) return v4[1];
  const bare = ip.split('%')[0];
  if (isIPv6(bare)) return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
  // A forwarded-for value that is no address at all: still counted, under a key of bounded length.
  return `other:${sha256Hex(ip).slice(0, 32)}`;
}

function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase();
  const v4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4Tail) {
    const [a, b, c, d] = v4Tail.slice(1).map(Number);
    text = `${text.slice(0, v4Tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].map((group) => parseInt(group, 16).toString(16));
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Sign-in throttling with counters in Redis, so that every api instance enforces the same limits.
 * Without Redis there is no way to know how many attempts were made: sign-in is refused (503)
 * rather than let through unthrottled.
 *
 * One round trip per sign-in. The address counts every attempt; the account counts an attempt as a
 * failure before the password is checked (a success deletes the count), so parallel guesses cannot
 * all pass the check before any of them is recorded. An attempt refused by the address limit does
 * not touch the account. Windows are fixed, from the first attempt: hammering does not extend them.
 */
@Injectable()
export class LoginThrottle {
  private readonly logger = new Logger('LoginThrottle');
  private readonly prefix: string;
  private readonly windowMs: number;
  private readonly windows: WindowCounters | undefined;

  constructor(
    private readonly config: AppConfig,
    // Absent only in the operator CLI, which builds UsersModule for UsersService and serves no sign-in.
    @Optional() @Inject(REDIS) private readonly redis?: RedisClient,
  ) {
    // The hash tag keeps both keys of the script in one slot should Redis become a cluster.
    this.prefix = `${config.REDIS_PREFIX}:{login}`;
    this.windowMs = config.LOGIN_THROTTLE_WINDOW_MINUTES * 60_000;
    this.windows = redis && new WindowCounters(redis);
  }

  /**
   * Counts an attempt, or refuses it with 429 and Retry-After (set on `response`). Until `succeeded`
   * is called for the e-mail, the attempt counts as a failure of that account.
   */
  async attempt(email: string, ip: string | undefined, response: Response): Promise<void> {
    let verdict: WindowVerdict;
    try {
      if (!this.windows) throw new Error('no Redis client');
      verdict = await withDeadline(
        this.windows.count([
          {
            key: `${this.prefix}:address:${clientAddressKey(ip)}`,
            limit: this.config.LOGIN_MAX_ATTEMPTS_PER_ADDRESS,
            ttlMs: this.windowMs,
          },
          {
            key: this.accountKey(email),
            limit: this.config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
            ttlMs: this.windowMs,
          },
        ]),
        REDIS_DEADLINE_MS,
      );
    } catch (error) {
      this.logger.warn(`sign-in refused, throttling counters unavailable: ${(error as Error).message}`);
      response.setHeader('Retry-After', '5');
      throw new ServiceUnavailableException(UNAVAILABLE_MESSAGE);
    }
    const { refusedBy, over, msLeft } = verdict;
    if (refusedBy === undefined) return;
    const seconds = Math.max(1, Math.ceil(msLeft / 1000));
    response.setHeader('Retry-After', String(seconds));
    const byAddress = refusedBy === 0;
    if (over === 1) {
      // Once per window and counter, so that a flood of attempts does not flood the log too.
      this.logger.warn(
        byAddress
          ? `sign-in throttled: more than ${this.config.LOGIN_MAX_ATTEMPTS_PER_ADDRESS} attempts from ${clientAddressKey(ip)}, refused for ${seconds} s`
          : `sign-in throttled: more than ${this.config.LOGIN_MAX_FAILURES_PER_ACCOUNT} failed attempts for ${normaliseEmail(email)}, refused for ${seconds} s`,
      );
    }
    throw new HttpException(
      byAddress
        ? 'too many sign-in attempts from this address, try again later'
        : 'too many failed sign-in attempts for this account, try again later',
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }

  /** The password was right: the account's failures are forgiven. */
  async succeeded(email: string): Promise<void> {
    try {
      if (this.redis) await withDeadline(this.redis.del(this.accountKey(email)), REDIS_DEADLINE_MS);
    } catch (error) {
      // The user has proven the password; the count runs out with its window anyway.
      this.logger.warn(`could not clear the sign-in failure count: ${(error as Error).message}`);
    }
  }

  private accountKey(email: string): string {
    // Hashed: keys stay short, and Redis holds no list of e-mail addresses.
    return `${this.prefix}:account:${sha256Hex(normaliseEmail(email))}`;
  }
}
