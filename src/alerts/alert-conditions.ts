/**
 * Optional filters in a rule's `conditions` (an empty object matches everything):
 * - `environments`: list of environment names; the issue's latest event must come from one of them.
 * - `min_level`: one of debug < info < warning < error < fatal; the issue's level must be at least that.
 * - `monitor_kinds`: `cron` and/or `uptime`; the issue must be a monitor issue of one of them.
 * A condition whose value is not understood is ignored rather than treated as "match nothing": a
 * mistyped filter should not silently swallow every alert.
 */
export const LEVELS = ['debug', 'info', 'warning', 'error', 'fatal'] as const;
export type Level = (typeof LEVELS)[number];

const LEVEL_ALIASES: Record<string, Level> = {
  warn: 'warning',
  critical: 'fatal',
  log: 'info',
  trace: 'debug',
};

/** Rank of a level as SDKs spell it, or null for a level nobody knows. */
export function levelRank(level: string | null | undefined): number | null {
  const name = (level ?? '').trim().toLowerCase();
  const known = (LEVELS as readonly string[]).includes(name) ? (name as Level) : LEVEL_ALIASES[name];
  return known ? LEVELS.indexOf(known) : null;
}

export interface ConditionFacts {
  issueLevel: string;
  /** Environment of the issue's latest event; null when it has none. */
  environment: string | null;
  /** `error`, or the kind of monitor whose issue it is. */
  issueKind?: string;
}

export interface ParsedConditions {
  environments?: string[];
  minLevel?: Level;
  monitorKinds?: string[];
}

export function parseConditions(conditions: unknown): ParsedConditions {
  if (typeof conditions !== 'object' || conditions === null || Array.isArray(conditions)) return {};
  const raw = conditions as Record<string, unknown>;
  const parsed: ParsedConditions = {};
  if (Array.isArray(raw.environments)) {
    const names = raw.environments.filter((name): name is string => typeof name === 'string');
    if (names.length > 0) parsed.environments = names;
  }
  if (typeof raw.min_level === 'string') {
    const name = raw.min_level.trim().toLowerCase();
    const level = (LEVELS as readonly string[]).includes(name) ? (name as Level) : LEVEL_ALIASES[name];
    if (level) parsed.minLevel = level;
  }
  if (Array.isArray(raw.monitor_kinds)) {
    const kinds = raw.monitor_kinds.filter((kind): kind is string => kind === 'cron' || kind === 'uptime');
    if (kinds.length > 0) parsed.monitorKinds = kinds;
  }
  return parsed;
}

/**
 * Whether the rule's conditions let this trigger through. An issue whose latest event has no
 * environment does not match an environment list; an unknown level is let through (dropping an
 * alert is worse than sending one too many).
 */
export function conditionsMatch(conditions: ParsedConditions, facts: ConditionFacts): boolean {
  if (
    conditions.environments &&
    (facts.environment === null || !conditions.environments.includes(facts.environment))
  ) {
    return false;
  }
  if (conditions.monitorKinds && !conditions.monitorKinds.includes(facts.issueKind ?? 'error')) return false;
  if (conditions.minLevel) {
    const rank = levelRank(facts.issueLevel);
    if (rank !== null && rank < LEVELS.indexOf(conditions.minLevel)) return false;
  }
  return true;
}

/** The environment costs a query; only rules that filter on it need it. */
export function needsEnvironment(conditions: ParsedConditions): boolean {
  return conditions.environments !== undefined;
}
