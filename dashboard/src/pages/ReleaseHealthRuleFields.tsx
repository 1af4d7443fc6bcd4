import type { Rule } from '../api';

/** A `release_health` rule's conditions (src/rules/release-health-conditions.ts). */
export const METRICS = ['crash_free_sessions', 'crash_free_users'] as const;
export type Metric = (typeof METRICS)[number];
const METRIC_NAMES: Record<Metric, string> = {
  crash_free_sessions: 'Crash-free sessions',
  crash_free_users: 'Crash-free users',
};
export const MAX_WINDOW_HOURS = 168;

export type ReleaseHealthConditions = {
  metric: Metric;
  threshold: number;
  window_hours: number;
  min_sessions: number;
  environments?: string[];
};

/** The form's fields as typed. */
export interface ReleaseHealthDraft {
  metric: Metric;
  threshold: string;
  window_hours: string;
  min_sessions: string;
  /** Comma-separated. */
  environments: string;
}

function splitEnvironments(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((env) => env.trim())
        .filter(Boolean),
    ),
  ];
}

export function releaseHealthDraftOf(rule?: Rule): ReleaseHealthDraft {
  const raw = rule?.alert_type === 'release_health' ? rule.conditions : {};
  const metric = (METRICS as readonly unknown[]).includes(raw.metric)
    ? (raw.metric as Metric)
    : 'crash_free_sessions';
  const number = (value: unknown, fallback: number) => String(typeof value === 'number' ? value : fallback);
  const environments = Array.isArray(raw.environments)
    ? raw.environments.filter((env): env is string => typeof env === 'string')
    : [];
  return {
    metric,
    threshold: number(raw.threshold, 99),
    window_hours: number(raw.window_hours, 24),
    min_sessions: number(raw.min_sessions, 100),
    environments: environments.join(', '),
  };
}

/** The conditions to send, or the first field's problem in words (the server checks them again). */
export function releaseHealthConditions(draft: ReleaseHealthDraft): ReleaseHealthConditions | string {
  const threshold = Number(draft.threshold);
  if (draft.threshold.trim() === '' || !Number.isFinite(threshold) || threshold <= 0 || threshold > 100)
    return 'Threshold must be a percentage greater than 0 and at most 100.';
  const window = Number(draft.window_hours);
  if (!Number.isInteger(window) || window < 1 || window > MAX_WINDOW_HOURS)
    return `Window must be a whole number of hours from 1 to ${MAX_WINDOW_HOURS}.`;
  const minimum = Number(draft.min_sessions);
  if (!Number.isInteger(minimum) || minimum < 1) return 'Minimum sessions must be a whole number, 1 or more.';
  const environments = splitEnvironments(draft.environments);
  return {
    metric: draft.metric,
    threshold,
    window_hours: window,
    min_sessions: minimum,
    ...(environments.length ? { environments } : {}),
  };
}

/** `Crash-free sessions below 99% over 24 h, from 100 sessions · Environments: any` */
export function describeReleaseHealth(rule: Rule): string {
  const draft = releaseHealthDraftOf(rule);
  const environments = draft.environments || 'any';
  return (
    `${METRIC_NAMES[draft.metric]} below ${draft.threshold}% over ${draft.window_hours} h, ` +
    `from ${draft.min_sessions} sessions · Environments: ${environments}`
  );
}

export function ReleaseHealthFields({
  prefix,
  draft,
  onChange,
  knownEnvironments,
}: {
  prefix: string;
  draft: ReleaseHealthDraft;
  onChange: (patch: Partial<ReleaseHealthDraft>) => void;
  knownEnvironments: string[];
}) {
  return (
    <fieldset class="field rule-conditions">
      <legend>A release's health</legend>
      <label class="field">
        <span>Metric</span>
        <select
          name="rule-metric"
          value={draft.metric}
          onChange={(e) => onChange({ metric: e.currentTarget.value as Metric })}
        >
          {METRICS.map((metric) => (
            <option key={metric} value={metric}>
              {METRIC_NAMES[metric]}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>Below (%)</span>
        <input
          name="rule-threshold"
          type="number"
          min={0.01}
          max={100}
          step="any"
          inputMode="decimal"
          required
          value={draft.threshold}
          onInput={(e) => onChange({ threshold: e.currentTarget.value })}
        />
      </label>
      <label class="field">
        <span>Over the last (hours)</span>
        <input
          name="rule-window"
          type="number"
          min={1}
          max={MAX_WINDOW_HOURS}
          step={1}
          inputMode="numeric"
          required
          value={draft.window_hours}
          onInput={(e) => onChange({ window_hours: e.currentTarget.value })}
        />
      </label>
      <label class="field">
        <span>Once it has at least (sessions)</span>
        <input
          name="rule-min-sessions"
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          required
          value={draft.min_sessions}
          onInput={(e) => onChange({ min_sessions: e.currentTarget.value })}
        />
      </label>
      <div class="field">
        <label for={`${prefix}-health-environments`}>Environments</label>
        <input
          name="rule-health-environments"
          id={`${prefix}-health-environments`}
          placeholder="every environment"
          aria-describedby={`${prefix}-health-environments-hint`}
          value={draft.environments}
          onInput={(e) => onChange({ environments: e.currentTarget.value })}
        />
        <small class="hint" id={`${prefix}-health-environments-hint`}>
          Comma-separated{knownEnvironments.length > 0 ? ` (seen: ${knownEnvironments.join(', ')})` : ''}.
          Only sessions of these environments count; empty means every environment.
        </small>
      </div>
      <p class="hint">
        Checked every minute for each release. A release alerts once when it falls below the threshold, and
        again only after it is back at or above it.
      </p>
    </fieldset>
  );
}
