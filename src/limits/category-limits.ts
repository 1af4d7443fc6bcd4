import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { withDeadline } from '../common/deadline';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { LimitKeys } from './limit-keys';
import { REDIS, RedisClient } from '../redis/redis.module';
import { WindowCounters } from '../redis/window-counters';
import { EXPIRY_SLACK_MS, MINUTE_MS, minuteStart } from './quota-periods';

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
  private readonly windows: WindowCounters;

  constructor(
    redis: RedisClient,
    private readonly clock: Clock,
    config: AppConfig,
    private readonly options: CategoryLimitOptions,
  ) {
    this.logger = new Logger(`${options.category === 'monitor' ? 'CheckIn' : 'Feedback'}Limits`);
    this.warnings = new RepeatedLog(this.logger, 60_000);
    this.timeoutMs = config.EVENT_LIMITS_TIMEOUT_MS;
    this.keys = new LimitKeys(config.REDIS_PREFIX);
    this.windows = new WindowCounters(redis);
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
    return this.keys.categoryMinute(projectId, this.options.category, minuteStart(now));
  }

  /** Counts `wanted` items of the project, as many as its minute allows. */
  async take(projectId: number, wanted: number): Promise<CategoryAllowance> {
    const { limit, noun } = this.options;
    if (limit === 0 || wanted === 0) return { taken: wanted, refused: 0, retryAfterSeconds: 0 };
    const now = this.clock.now();
    const windowEnd = minuteStart(now) + MINUTE_MS;
    let taken: number;
    try {
      taken = await withDeadline(
        this.windows.take(
          { key: this.key(projectId, now), limit, ttlMs: windowEnd - now + EXPIRY_SLACK_MS },
          wanted,
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
    const refused = wanted - taken;
    const retryAfterSeconds = Math.max(1, Math.ceil((windowEnd - now) / 1000));
    if (refused > 0) {
      this.warnings.warn(
        `over:${projectId}`,
        `rate limit exceeded for project ${projectId}: more than ${limit} ${noun} per minute; ` +
          `dropping ${noun} for ${retryAfterSeconds} s`,
      );
    }
    return { taken, refused, retryAfterSeconds };
  }

  /** Gives back items taken this minute that were not kept after all (the queue refused them). */
  async giveBack(projectId: number, count: number): Promise<void> {
    if (this.options.limit === 0 || count === 0) return;
    try {
      await withDeadline(
        this.windows.giveBack([this.key(projectId, this.clock.now())], count),
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
