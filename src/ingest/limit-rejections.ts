import { HttpStatus } from '@nestjs/common';
import type { CategoryAllowance, CategoryMinuteLimit } from '../limits/category-limits';
import type { EventLimitRefusal } from '../limits/event-limits';
import type { OutcomeCount } from '../outcomes/envelope-outcomes';
import { IngestRejection } from './ingest-rejection';

/**
 * The data categories the event limits cover, as `X-Sentry-Rate-Limits` names them: every category
 * an SDK sends but `session` and `monitor` (sessions and cron check-ins: limits of their own, see
 * SessionIntake and CheckInLimits) and `internal` (client reports, which are not limited).
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

const QUOTA_MESSAGES = {
  daily_quota: "the project's daily event quota is used up",
  monthly_quota: "the project's monthly event quota is used up",
  spike_protection: 'spike protection engaged: far more events than the project usually sends in an hour',
};

/** The 429 of a request over the project's event limits. */
export function eventLimitRejection(refused: EventLimitRefusal): IngestRejection {
  const seconds = String(refused.retryAfterSeconds);
  if ('window' in refused) {
    return new IngestRejection(
      `rate limit exceeded: more than ${refused.limit} events per ${refused.window} for this project`,
      HttpStatus.TOO_MANY_REQUESTS,
      // Sentry's format: <seconds>:<categories>:<scope>. Every category but sessions (and the
      // SDK's own client reports): SDKs stop sending those until then, and go on sending sessions.
      {
        'Retry-After': seconds,
        'X-Sentry-Rate-Limits': `${seconds}:${EVENT_RATE_LIMIT_CATEGORIES}:project`,
      },
    );
  }
  return new IngestRejection(
    `${QUOTA_MESSAGES[refused.reason]}; events are accepted again in ${seconds} s`,
    HttpStatus.TOO_MANY_REQUESTS,
    // <seconds>:<categories>:<scope>:<reason code>: SDKs back off for these categories and
    // report the drops with the reason code.
    {
      'Retry-After': seconds,
      'X-Sentry-Rate-Limits': `${seconds}:${EVENT_RATE_LIMIT_CATEGORIES}:project:${refused.reason}`,
    },
    refused.reason,
  );
}

/** The items a category's limit dropped, as outcomes. */
export function categoryRateLimited(limits: CategoryMinuteLimit, quantity: number): OutcomeCount {
  return { outcome: 'rate_limited', category: limits.category, reason: 'rate_limit', quantity };
}

/** The 429 of a request whose items of a category were all refused; counts them as `rate_limited` outcomes. */
export function categoryRejection(limits: CategoryMinuteLimit, allowance: CategoryAllowance): IngestRejection {
  const seconds = String(allowance.retryAfterSeconds);
  const { limit, noun, category } = limits;
  return new IngestRejection(
    `rate limit exceeded: more than ${limit} ${noun} per minute for this project`,
    HttpStatus.TOO_MANY_REQUESTS,
    { 'Retry-After': seconds, 'X-Sentry-Rate-Limits': `${seconds}:${category}:project` },
    undefined,
    [categoryRateLimited(limits, allowance.refused)],
  );
}
