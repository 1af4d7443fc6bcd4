/**
 * The `conditions` of a `release_health` rule: "crash-free sessions (or users) of a release below
 * `threshold` percent over the last `window_hours` hours, once it has at least `min_sessions`
 * sessions there", optionally only counting sessions of some environments. Checked when the rule is
 * saved; the alert engine reads them back with parseReleaseHealthConditions.
 */
import { conditionsObject, parseEnvironments, RuleConditionsError } from './rule-conditions';

export const RELEASE_HEALTH_METRICS = ['crash_free_sessions', 'crash_free_users'] as const;
export type ReleaseHealthMetric = (typeof RELEASE_HEALTH_METRICS)[number];

/** A week: the longest window the hourly rows are read over for an alert. */
export const MAX_WINDOW_HOURS = 168;
const MAX_MIN_SESSIONS = 1_000_000_000;
const KEYS = ['metric', 'threshold', 'window_hours', 'min_sessions', 'environments'];

export interface ReleaseHealthConditions {
  metric: ReleaseHealthMetric;
  /** Percent, 0 < threshold ≤ 100: a release whose figure is below it is in breach. */
  threshold: number;
  /** Whole hours, the current one included (sessions count in the hour they started). */
  window_hours: number;
  /** A release with fewer sessions in the window is not judged. */
  min_sessions: number;
  /** Only sessions of these environments count; absent: every environment. */
  environments?: string[];
}

function isWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** Checks a `release_health` rule's conditions; every key but `environments` is required. */
export function validateReleaseHealthConditions(raw: unknown): ReleaseHealthConditions {
  const input = conditionsObject(raw, KEYS, 'release_health rules');
  if (
    typeof input.metric !== 'string' ||
    !(RELEASE_HEALTH_METRICS as readonly string[]).includes(input.metric)
  ) {
    throw new RuleConditionsError(`conditions.metric must be one of ${RELEASE_HEALTH_METRICS.join(', ')}`);
  }
  const threshold = input.threshold;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold <= 0 || threshold > 100) {
    throw new RuleConditionsError('conditions.threshold must be a percentage greater than 0 and at most 100');
  }
  if (!isWholeNumber(input.window_hours) || input.window_hours < 1 || input.window_hours > MAX_WINDOW_HOURS) {
    throw new RuleConditionsError(
      `conditions.window_hours must be a whole number of hours from 1 to ${MAX_WINDOW_HOURS}`,
    );
  }
  if (!isWholeNumber(input.min_sessions) || input.min_sessions < 1 || input.min_sessions > MAX_MIN_SESSIONS) {
    throw new RuleConditionsError(
      `conditions.min_sessions must be a whole number from 1 to ${MAX_MIN_SESSIONS}`,
    );
  }
  const result: ReleaseHealthConditions = {
    metric: input.metric as ReleaseHealthMetric,
    threshold,
    window_hours: input.window_hours,
    min_sessions: input.min_sessions,
  };
  const environments = parseEnvironments(input.environments);
  if (environments !== undefined) result.environments = environments;
  return result;
}

/** A stored rule's conditions, or null when they are not valid (a rule saved before they were checked). */
export function parseReleaseHealthConditions(raw: unknown): ReleaseHealthConditions | null {
  try {
    return validateReleaseHealthConditions(raw);
  } catch (error) {
    if (error instanceof RuleConditionsError) return null;
    throw error;
  }
}
