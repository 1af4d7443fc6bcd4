/**
 * Validation of a rule's `conditions` when it is saved. Matching them against a trigger is the alert
 * engine's business (src/alerts/alert-conditions.ts), which reads the same keys.
 */

/** Event levels from least to most severe; `min_level` lets a rule ignore the quieter ones. */
export const EVENT_LEVELS = ['debug', 'info', 'warning', 'error', 'fatal'] as const;
export type EventLevel = (typeof EVENT_LEVELS)[number];

export interface RuleConditions {
  /** Only events from these environments trigger the rule. */
  environments?: string[];
  /** Only events at least this severe trigger the rule. */
  min_level?: EventLevel;
  /** `monitor_failed` and `monitor_recovered` rules only: only these kinds of monitor trigger the rule. */
  monitor_kinds?: MonitorIssueKind[];
}

export const MONITOR_ISSUE_KINDS = ['cron', 'uptime'] as const;
export type MonitorIssueKind = (typeof MONITOR_ISSUE_KINDS)[number];

export class RuleConditionsError extends Error {}

const MAX_ENVIRONMENTS = 100;
const MAX_ENVIRONMENT_LENGTH = 200;
const KEYS = ['environments', 'min_level'];
const MONITOR_KEYS = [...KEYS, 'monitor_kinds'];

/**
 * Checks a rule's conditions and returns them normalised. An empty `environments` list is dropped:
 * it reads as "no restriction", never as "match nothing".
 */
export function validateRuleConditions(raw: unknown, forMonitors = false): RuleConditions {
  const input = conditionsObject(raw, forMonitors ? MONITOR_KEYS : KEYS);
  const result: RuleConditions = {};
  const environments = parseEnvironments(input.environments);
  if (environments !== undefined) result.environments = environments;
  if (input.min_level !== undefined && input.min_level !== null) {
    if (
      typeof input.min_level !== 'string' ||
      !(EVENT_LEVELS as readonly string[]).includes(input.min_level)
    ) {
      throw new RuleConditionsError(`conditions.min_level must be one of ${EVENT_LEVELS.join(', ')}`);
    }
    result.min_level = input.min_level as EventLevel;
  }
  if (input.monitor_kinds !== undefined && input.monitor_kinds !== null) {
    const kinds = input.monitor_kinds;
    if (
      !Array.isArray(kinds) ||
      !kinds.every(
        (kind) => typeof kind === 'string' && (MONITOR_ISSUE_KINDS as readonly string[]).includes(kind),
      )
    ) {
      throw new RuleConditionsError(
        `conditions.monitor_kinds must be a list of ${MONITOR_ISSUE_KINDS.join(', ')}`,
      );
    }
    const unique = [...new Set(kinds as MonitorIssueKind[])];
    if (unique.length > 0) result.monitor_kinds = unique;
  }
  return result;
}

/**
 * The conditions as an object of the allowed keys only; `ofRules` names the rules the allowed keys
 * are particular to, in the message that refuses another key.
 */
export function conditionsObject(
  raw: unknown,
  allowed: readonly string[],
  ofRules?: string,
): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new RuleConditionsError('conditions must be an object');
  }
  const input = raw as Record<string, unknown>;
  const unknownKey = Object.keys(input).find((key) => !allowed.includes(key));
  if (unknownKey !== undefined) {
    const scope = ofRules === undefined ? '' : ` for ${ofRules}`;
    throw new RuleConditionsError(
      `conditions.${unknownKey} is not supported${scope} (allowed: ${allowed.join(', ')})`,
    );
  }
  return input;
}

/**
 * A rule's `environments` condition: absent, null or an empty list is every environment
 * (undefined); otherwise the names trimmed, each once.
 */
export function parseEnvironments(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (
    !Array.isArray(raw) ||
    raw.length > MAX_ENVIRONMENTS ||
    !raw.every((env) => typeof env === 'string' && env.trim() !== '' && env.length <= MAX_ENVIRONMENT_LENGTH)
  ) {
    throw new RuleConditionsError(
      `conditions.environments must be a list of at most ${MAX_ENVIRONMENTS} non-empty strings`,
    );
  }
  const unique = [...new Set((raw as string[]).map((env) => env.trim()))];
  return unique.length > 0 ? unique : undefined;
}
