import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { withDeadline } from '../common/deadline';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { periodStart } from './quota-periods';
import { IngestRateLimiter, RateLimitDecision } from './rate-limiter';

/** Why a request's events are refused: a fixed window, or a quota or spike protection. */
export type EventLimitRefusal = Exclude<RateLimitDecision, { allowed: true }>;

/** What counting one request against the project's event limits came to. */
export interface EventLimitVerdict {
  /** When it was counted (allowed): a request that ends without an accepted event gives it back. */
  countedAt?: number;
  /** Over a limit: which, and for how long (ingest answers it with a 429). */
  refused?: EventLimitRefusal;
}

/** Bounds the memory of refusals marked; cleared whole, at worst a project is marked once more. */
const MAX_MARKED_REFUSALS = 10_000;

/**
 * The rate limits, quotas and spike protection of a request, in the limiter's one Redis call. When
 * Redis errors or takes longer than EVENT_LIMITS_TIMEOUT_MS the request is allowed uncounted and a
 * warning logged (at most once a minute): our own trouble never refuses an SDK's events.
 */
@Injectable()
export class EventLimits {
  private readonly logger = new Logger('EventLimits');
  private readonly warnings = new RepeatedLog(this.logger, 60_000);
  private readonly timeoutMs: number;
  /** `<project>:<reason>:<period start>` of the quota refusals this process marked: one mark per period. */
  private readonly markedRefusals = new Set<string>();

  constructor(
    private readonly limiter: IngestRateLimiter,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.timeoutMs = config.EVENT_LIMITS_TIMEOUT_MS;
  }

  async check(projectId: number): Promise<EventLimitVerdict> {
    const now = this.clock.now();
    // Far below every limit with the rate limits off: counted in memory, no Redis, no deadline timer.
    if (this.limiter.takeInMemory(projectId, now)) return { countedAt: now };
    let decision: RateLimitDecision;
    try {
      decision = await withDeadline(
        this.limiter.take(projectId, now),
        this.timeoutMs,
        `no answer within ${this.timeoutMs} ms`,
      );
    } catch (error) {
      this.warnings.warn(
        'redis',
        `event limits not checked, events accepted uncounted: Redis failed (${(error as Error).message})`,
      );
      return {};
    }
    if (decision.allowed) return { countedAt: now };
    if ('window' in decision) return { refused: decision };
    if (decision.reason === 'spike_protection' && decision.dropped === 1) this.spikeEngaged(projectId);
    if (decision.reason !== 'spike_protection') {
      this.quotaRefused(projectId, decision.reason, now);
      this.warnings.warn(
        `${decision.reason}:${projectId}`,
        `${decision.reason.replace('_', ' ')} of project ${projectId} used up; dropping events for ${decision.retryAfterSeconds} s`,
      );
    }
    return { refused: decision };
  }

  /**
   * Gives back the count of a request allowed at `countedAt` that ends without an accepted event
   * (only accepted events count). Never rejects: Redis trouble leaves the count taken, with a warning
   * at most once a minute, and no request waits for it longer than EVENT_LIMITS_TIMEOUT_MS.
   */
  async giveBack(projectId: number, countedAt: number): Promise<void> {
    try {
      await withDeadline(
        this.limiter.giveBack(projectId, countedAt),
        this.timeoutMs,
        `no answer within ${this.timeoutMs} ms`,
      );
    } catch (error) {
      this.warnings.warn(
        'give back',
        `event limits: a request without an accepted event stays counted, Redis failed (${(error as Error).message})`,
      );
    }
  }

  /**
   * The first refusal of a quota's period in this process: marked in Redis (once, whichever process
   * is first), for the refusal API's "since" and the minute job's one alert per period.
   */
  private quotaRefused(projectId: number, reason: 'daily_quota' | 'monthly_quota', now: number): void {
    const mark = `${projectId}:${reason}:${periodStart(reason, now)}`;
    if (this.markedRefusals.has(mark)) return;
    // Marks of ended periods are never looked up again.
    if (this.markedRefusals.size >= MAX_MARKED_REFUSALS) this.markedRefusals.clear();
    this.markedRefusals.add(mark);
    this.limiter.markQuotaRefusal(projectId, reason, now).catch((error: unknown) => {
      this.markedRefusals.delete(mark);
      this.warnings.warn('quota mark', `quota refusal of project ${projectId} not marked: ${(error as Error).message}`);
    });
  }

  /** The first drop of an hour: the minute job finds the project, records the spike and alerts. */
  private spikeEngaged(projectId: number): void {
    this.logger.warn(
      `spike protection engaged for project ${projectId}: dropping its events until the hour ends`,
    );
    this.limiter
      .markSpike(projectId)
      .catch((error: unknown) =>
        this.warnings.warn(
          'spike mark',
          `spike of project ${projectId} not marked: ${(error as Error).message}`,
        ),
      );
  }
}
