import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { withDeadline } from '../common/deadline';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import type { OutcomeCount } from '../outcomes/envelope-outcomes';
import { QuotaKeys } from '../privacy/quotas/quota-keys';
import { REDIS, RedisClient } from '../redis/redis.module';
import { IngestRejection } from './ingest-rejection';

/**
 * Takes up to ARGV[2] check-ins from the minute's allowance of ARGV[1]: counts them, and gives back
 * at once those past the limit, so that refused check-ins never count. KEYS: the minute's counter.
 * ARGV: limit, check-ins, the counter's TTL. Returns how many were taken.
 */
const TAKE_SCRIPT = `
local limit = tonumber(ARGV[1])
local wanted = tonumber(ARGV[2])
local count = redis.call('INCRBY', KEYS[1], wanted)
if count == wanted then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
local over = count - limit
if over <= 0 then return wanted end
local refused = math.min(wanted, over)
redis.call('DECRBY', KEYS[1], refused)
return wanted - refused
`;

/** Gives back ARGV[1] check-ins to the minute's counter, never below zero. KEYS: the counter. */
const GIVE_BACK_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1])) or 0
local back = math.min(count, tonumber(ARGV[1]))
if back > 0 then redis.call('DECRBY', KEYS[1], back) end
return back
`;

type TakeCommand = (key: string, limit: number, wanted: number, ttl: number) => Promise<number>;
type GiveBackCommand = (key: string, count: number) => Promise<number>;

const MINUTE_MS = 60_000;
/** The counter outlives its window a little, for an instance whose clock is a little behind. */
const EXPIRY_SLACK_MS = 60_000;

/** How many of a request's check-ins are within the project's limit. */
export interface CheckInAllowance {
  taken: number;
  /** The check-ins past the limit: dropped. */
  refused: number;
  /** Seconds until the window ends (when some were refused). */
  retryAfterSeconds: number;
}

/**
 * The per-project limit on cron check-ins (data category `monitor`), MAX_CHECK_INS_PER_MINUTE in
 * fixed windows shared by every API instance through Redis, apart from the event limits: a project
 * over its event quota still records its check-ins, and a flood of check-ins uses up no event quota.
 * Sentry limits check-ins per monitor and environment (6 a minute); ours is per project, so that a
 * client that invents monitor slugs cannot multiply it. When Redis errors or takes longer than
 * EVENT_LIMITS_TIMEOUT_MS the check-ins are taken uncounted and a warning logged at most once a
 * minute: our own trouble never refuses them.
 */
@Injectable()
export class CheckInLimits {
  private readonly logger = new Logger('CheckInLimits');
  private readonly warnings = new RepeatedLog(this.logger, 60_000);
  private readonly limit: number;
  private readonly timeoutMs: number;
  private readonly keys: QuotaKeys;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.limit = config.MAX_CHECK_INS_PER_MINUTE;
    this.timeoutMs = config.EVENT_LIMITS_TIMEOUT_MS;
    this.keys = new QuotaKeys(config.REDIS_PREFIX);
    if (!('ingestTakeCheckIns' in this.redis)) {
      this.redis.defineCommand('ingestTakeCheckIns', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    }
    if (!('ingestGiveBackCheckIns' in this.redis)) {
      this.redis.defineCommand('ingestGiveBackCheckIns', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
    }
  }

  /** Counts `wanted` check-ins of the project, as many as its minute allows. */
  async take(projectId: number, wanted: number): Promise<CheckInAllowance> {
    if (this.limit === 0 || wanted === 0) return { taken: wanted, refused: 0, retryAfterSeconds: 0 };
    const now = this.clock.now();
    const minuteStart = now - (now % MINUTE_MS);
    const command = (this.redis as unknown as { ingestTakeCheckIns: TakeCommand }).ingestTakeCheckIns;
    let taken: number;
    try {
      taken = await withDeadline(
        command.call(
          this.redis,
          this.keys.checkInsMinute(projectId, minuteStart),
          this.limit,
          wanted,
          minuteStart + MINUTE_MS - now + EXPIRY_SLACK_MS,
        ),
        this.timeoutMs,
        `no answer within ${this.timeoutMs} ms`,
      );
    } catch (error) {
      this.warnings.warn(
        'redis',
        `check-in limit not checked, check-ins accepted uncounted: Redis failed (${(error as Error).message})`,
      );
      return { taken: wanted, refused: 0, retryAfterSeconds: 0 };
    }
    const refused = wanted - Number(taken);
    const retryAfterSeconds = Math.max(1, Math.ceil((minuteStart + MINUTE_MS - now) / 1000));
    if (refused > 0) {
      this.warnings.warn(
        `over:${projectId}`,
        `rate limit exceeded for project ${projectId}: more than ${this.limit} check-ins per minute; ` +
          `dropping check-ins for ${retryAfterSeconds} s`,
      );
    }
    return { taken: Number(taken), refused, retryAfterSeconds };
  }

  /** Gives back check-ins taken this minute that were not kept after all (the queue refused them). */
  async giveBack(projectId: number, count: number): Promise<void> {
    if (this.limit === 0 || count === 0) return;
    const now = this.clock.now();
    const command = (this.redis as unknown as { ingestGiveBackCheckIns: GiveBackCommand }).ingestGiveBackCheckIns;
    try {
      await withDeadline(
        command.call(this.redis, this.keys.checkInsMinute(projectId, now - (now % MINUTE_MS)), count),
        this.timeoutMs,
        `no answer within ${this.timeoutMs} ms`,
      );
    } catch (error) {
      this.warnings.warn('give back', `check-ins not kept stay counted: Redis failed (${(error as Error).message})`);
    }
  }

  /** The 429 of a request whose check-ins were all refused; counts them as `rate_limited` outcomes. */
  refusal(allowance: CheckInAllowance): IngestRejection {
    const seconds = String(allowance.retryAfterSeconds);
    return new IngestRejection(
      `rate limit exceeded: more than ${this.limit} check-ins per minute for this project`,
      HttpStatus.TOO_MANY_REQUESTS,
      { 'Retry-After': seconds, 'X-Sentry-Rate-Limits': `${seconds}:monitor:project` },
      undefined,
      [rateLimitedCheckIns(allowance.refused)],
    );
  }
}

/** What check-ins dropped by the limit count as. */
export function rateLimitedCheckIns(quantity: number): OutcomeCount {
  return { outcome: 'rate_limited', category: 'monitor', reason: 'rate_limit', quantity };
}
