import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { withDeadline } from '../common/deadline';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { LimitKeys } from './limit-keys';
import { REDIS, RedisClient } from '../redis/redis.module';

/**
 * Takes up to ARGV[2] items from the minute's allowance of ARGV[1]: counts them, and gives back at
 * once those past the limit, so that refused items never count. KEYS: the minute's counter. ARGV:
 * limit, items, the counter's TTL. Returns how many were taken.
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

/** Gives back ARGV[1] items to the minute's counter, never below zero. KEYS: the counter. */
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

/** How many of a request's items of a category are within the project's limit. */
export interface CategoryAllowance {
  taken: number;
  /** The items past the limit: dropped. */
  refused: number;
  /** Seconds until the window ends (when some were refused). */
  retryAfterSeconds: number;
}

/** A data category limited per project and minute apart from the event limits. */
interface CategoryLimitOptions {
  /** The category as `X-Sentry-Rate-Limits` and outcomes name it. */
  category: 'monitor' | 'feedback';
  /** What the items are called in messages: `check-ins`. */
  noun: string;
  /** Per project and minute; 0: no limit. */
  limit: number;
}

/**
 * A per-project limit on the items of one data category, in fixed one-minute windows shared by
 * every API instance through Redis, apart from the event limits: a project over its event quota
 * still records them, and a flood of them uses up no event quota. When Redis errors or takes longer
 * than EVENT_LIMITS_TIMEOUT_MS the items are taken uncounted and a warning logged at most once a
 * minute: our own trouble never refuses them.
 */
export class CategoryMinuteLimit {
  private readonly logger: Logger;
  private readonly warnings: RepeatedLog;
  private readonly timeoutMs: number;
  private readonly keys: LimitKeys;

  constructor(
    private readonly redis: RedisClient,
    private readonly clock: Clock,
    config: AppConfig,
    private readonly options: CategoryLimitOptions,
  ) {
    this.logger = new Logger(`${options.category === 'monitor' ? 'CheckIn' : 'Feedback'}Limits`);
    this.warnings = new RepeatedLog(this.logger, 60_000);
    this.timeoutMs = config.EVENT_LIMITS_TIMEOUT_MS;
    this.keys = new LimitKeys(config.REDIS_PREFIX);
    if (!('ingestTakeInCategory' in this.redis)) {
      this.redis.defineCommand('ingestTakeInCategory', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    }
    if (!('ingestGiveBackInCategory' in this.redis)) {
      this.redis.defineCommand('ingestGiveBackInCategory', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
    }
  }

  /** The category as `X-Sentry-Rate-Limits` and outcomes name it. */
  get category(): CategoryLimitOptions['category'] {
    return this.options.category;
  }

  /** What the items are called in messages. */
  get noun(): string {
    return this.options.noun;
  }

  /** Per project and minute; 0: no limit. */
  get limit(): number {
    return this.options.limit;
  }

  private key(projectId: number, now: number): string {
    return this.keys.categoryMinute(projectId, this.options.category, now - (now % MINUTE_MS));
  }

  /** Counts `wanted` items of the project, as many as its minute allows. */
  async take(projectId: number, wanted: number): Promise<CategoryAllowance> {
    const { limit, noun } = this.options;
    if (limit === 0 || wanted === 0) return { taken: wanted, refused: 0, retryAfterSeconds: 0 };
    const now = this.clock.now();
    const minuteStart = now - (now % MINUTE_MS);
    const command = (this.redis as unknown as { ingestTakeInCategory: TakeCommand }).ingestTakeInCategory;
    let taken: number;
    try {
      taken = await withDeadline(
        command.call(
          this.redis,
          this.key(projectId, now),
          limit,
          wanted,
          minuteStart + MINUTE_MS - now + EXPIRY_SLACK_MS,
        ),
        this.timeoutMs,
        `no answer within ${this.timeoutMs} ms`,
      );
    } catch (error) {
      this.warnings.warn(
        'redis',
        `${noun} limit not checked, ${noun} accepted uncounted: Redis failed (${(error as Error).message})`,
      );
      return { taken: wanted, refused: 0, retryAfterSeconds: 0 };
    }
    const refused = wanted - Number(taken);
    const retryAfterSeconds = Math.max(1, Math.ceil((minuteStart + MINUTE_MS - now) / 1000));
    if (refused > 0) {
      this.warnings.warn(
        `over:${projectId}`,
        `rate limit exceeded for project ${projectId}: more than ${limit} ${noun} per minute; ` +
          `dropping ${noun} for ${retryAfterSeconds} s`,
      );
    }
    return { taken: Number(taken), refused, retryAfterSeconds };
  }

  /** Gives back items taken this minute that were not kept after all (the queue refused them). */
  async giveBack(projectId: number, count: number): Promise<void> {
    if (this.options.limit === 0 || count === 0) return;
    const command = (this.redis as unknown as { ingestGiveBackInCategory: GiveBackCommand })
      .ingestGiveBackInCategory;
    try {
      await withDeadline(
        command.call(this.redis, this.key(projectId, this.clock.now()), count),
        this.timeoutMs,
        `no answer within ${this.timeoutMs} ms`,
      );
    } catch (error) {
      this.warnings.warn(
        'give back',
        `${this.options.noun} not kept stay counted: Redis failed (${(error as Error).message})`,
      );
    }
  }
}

/**
 * Cron check-ins (category `monitor`), MAX_CHECK_INS_PER_MINUTE per project. Sentry limits
 * check-ins per monitor and environment (6 a minute); ours is per project, so that a client that
 * invents monitor slugs cannot multiply it.
 */
@Injectable()
export class CheckInLimits extends CategoryMinuteLimit {
  constructor(@Inject(REDIS) redis: RedisClient, clock: Clock, config: AppConfig) {
    super(redis, clock, config, {
      category: 'monitor',
      noun: 'check-ins',
      limit: config.MAX_CHECK_INS_PER_MINUTE,
    });
  }
}

/**
 * User feedback from envelopes (`feedback` and `user_report` items, category `feedback`),
 * MAX_FEEDBACK_PER_MINUTE per project: feedback is no event, so it uses up no event quota, and
 * each one is a row, so it has a limit of its own.
 */
@Injectable()
export class FeedbackLimits extends CategoryMinuteLimit {
  constructor(@Inject(REDIS) redis: RedisClient, clock: Clock, config: AppConfig) {
    super(redis, clock, config, {
      category: 'feedback',
      noun: 'feedback',
      limit: config.MAX_FEEDBACK_PER_MINUTE,
    });
  }
}
