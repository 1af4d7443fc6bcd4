import { useState } from 'preact/hooks';
import { useSubmit } from '../actions';
import { AlertType, call, Channel, client, Rule } from '../api';
import { CheckboxPicker, EnabledAndActions, ErrorMessage } from '../components';
import { describeReleaseHealth, ReleaseHealthDraft, releaseHealthConditions, releaseHealthDraftOf, ReleaseHealthFields } from './ReleaseHealthRuleFields';

/** The filters a rule's `conditions` may hold (src/rules/rule-conditions.ts); none means every issue. */
type RuleConditions = {
  environments?: string[];
  min_level?: Level;
  /** Monitor rules only: `cron` and/or `uptime`. */
  monitor_kinds?: MonitorKind[];
};

const MONITOR_KINDS = ['cron', 'uptime'] as const;
type MonitorKind = (typeof MONITOR_KINDS)[number];
const isMonitorRule = (alertType: AlertType) => alertType === 'monitor_failed' || alertType === 'monitor_recovered';

const LEVELS = ['debug', 'info', 'warning', 'error', 'fatal'] as const;
type Level = (typeof LEVELS)[number];

export function conditionsOf(rule?: Rule): RuleConditions {
  const raw = rule?.conditions ?? {};
  const environments = Array.isArray(raw.environments) ? raw.environments.filter((env): env is string => typeof env === 'string') : [];
  const level = typeof raw.min_level === 'string' && (LEVELS as readonly string[]).includes(raw.min_level) ? (raw.min_level as Level) : undefined;
  const kinds = Array.isArray(raw.monitor_kinds) ? raw.monitor_kinds.filter((kind): kind is MonitorKind => (MONITOR_KINDS as readonly unknown[]).includes(kind)) : [];
  return { ...(environments.length ? { environments } : {}), ...(level ? { min_level: level } : {}), ...(kinds.length ? { monitor_kinds: kinds } : {}) };
}

function splitEnvironments(text: string): string[] {
  return [...new Set(text.split(',').map((env) => env.trim()).filter(Boolean))];
}

function levelText(level: Level): string {
  return level === 'fatal' ? 'fatal only' : `${level} or worse`;
}

/** `Environments: production, staging · Level: error or worse`; `any` where a filter is not set. */
export function describeConditions(conditions: RuleConditions): string {
  const environments = conditions.environments?.length ? conditions.environments.join(', ') : 'any';
  const monitors = conditions.monitor_kinds?.length ? ` · Monitors: ${conditions.monitor_kinds.join(', ')}` : '';
  return `Environments: ${environments} · Level: ${conditions.min_level ? levelText(conditions.min_level) : 'any'}${monitors}`;
}

/** What a rule's conditions say, whatever its type. */
export function describeRuleConditions(rule: Rule): string {
  if (rule.alert_type === 'spike_protection') return 'When spike protection engages: once per spike';
  if (rule.alert_type === 'quota_exhausted') return 'When a quota is used up: once per day or month';
  return rule.alert_type === 'release_health' ? describeReleaseHealth(rule) : describeConditions(conditionsOf(rule));
}

/** Short names of the alert types, for badges and the history. */
export const ALERT_NAMES: Record<AlertType, string> = {
  new_issue: 'New issue',
  regression: 'Regression',
  unmute: 'Unmuted',
  new_feedback: 'New feedback',
  release_health: 'Release health',
  monitor_failed: 'Monitor failed',
  monitor_recovered: 'Monitor recovered',
  spike_protection: 'Spike protection',
  quota_exhausted: 'Quota used up',
};

const ALERT_LABELS: Record<AlertType, string> = {
  new_issue: 'New issue',
  regression: 'Regression (resolved issue seen again)',
  unmute: 'Unmute (muted issue reopened)',
  new_feedback: 'New user feedback on an issue',
  release_health: 'Release health (crash-free rate too low)',
  monitor_failed: 'Monitor failed (a cron job missed, failed or timed out; a site went down)',
  monitor_recovered: 'Monitor recovered (its issue resolved)',
  spike_protection: 'Spike protection engaged (events dropped)',
  quota_exhausted: 'Quota used up (events refused until the day or month ends)',
};

interface RuleDraft {
  name: string;
  alert_type: AlertType;
  channel_ids: number[];
  cooldown_minutes: string;
  is_enabled: boolean;
  /** Comma-separated, as typed. */
  environments: string;
  min_level: Level | '';
  /** One kind, or '' for every monitor. */
  monitor_kind: MonitorKind | '';
  notify_assignee: boolean;
  health: ReleaseHealthDraft;
}

export function RuleForm({
  projectId,
  rule,
  channels,
  knownEnvironments,
  onDone,
  onCancel,
}: {
  projectId: number;
  rule?: Rule;
  channels: Channel[];
  knownEnvironments: string[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<RuleDraft>(() => {
    const conditions = conditionsOf(rule);
    return {
      name: rule?.name ?? '',
      alert_type: rule?.alert_type ?? 'new_issue',
      channel_ids: rule?.channel_ids ?? [],
      cooldown_minutes: String(rule?.cooldown_minutes ?? 0),
      is_enabled: rule?.is_enabled ?? true,
      environments: (conditions.environments ?? []).join(', '),
      min_level: conditions.min_level ?? '',
      monitor_kind: conditions.monitor_kinds?.length === 1 ? conditions.monitor_kinds[0] : '',
      notify_assignee: rule?.notify_assignee ?? false,
      health: releaseHealthDraftOf(rule),
    };
  });
  const forRelease = draft.alert_type === 'release_health';
  const forSpikes = draft.alert_type === 'spike_protection';
  const forQuotas = draft.alert_type === 'quota_exhausted';
  const { busy, error, setError, run } = useSubmit();
  const set = (patch: Partial<RuleDraft>) => setDraft({ ...draft, ...patch });
  const prefix = rule ? `rule-${rule.id}` : 'rule-new';

  const submit = async (event: Event) => {
    event.preventDefault();
    const cooldown = Number(draft.cooldown_minutes);
    if (!Number.isInteger(cooldown) || cooldown < 0) {
      setError('Cooldown must be a whole number of minutes (0 or more).');
      return;
    }
    const environments = splitEnvironments(draft.environments);
    const health = forRelease ? releaseHealthConditions(draft.health) : null;
    if (typeof health === 'string') {
      setError(health);
      return;
    }
    const conditions: Record<string, unknown> = forSpikes || forQuotas ? {} : health ?? {
      ...(environments.length ? { environments } : {}),
      ...(draft.min_level ? { min_level: draft.min_level } : {}),
      ...(draft.monitor_kind && isMonitorRule(draft.alert_type) ? { monitor_kinds: [draft.monitor_kind] } : {}),
    };
    const body = {
      name: draft.name.trim(),
      channel_ids: draft.channel_ids,
      cooldown_minutes: cooldown,
      is_enabled: draft.is_enabled,
      conditions,
      // Sent when set, or when the rule shows the field: servers from before it refuse unknown fields.
      ...(draft.notify_assignee || rule?.notify_assignee !== undefined
        ? { notify_assignee: draft.notify_assignee }
        : {}),
    };
    const saved = await run(async () => {
      if (rule) {
        await call(
          client.PATCH('/api/projects/{projectId}/alert-rules/{ruleId}', {
            params: { path: { projectId, ruleId: rule.id } },
            body,
          }),
        );
      } else {
        await call(
          client.POST('/api/projects/{projectId}/alert-rules', {
            params: { path: { projectId } },
            body: { ...body, alert_type: draft.alert_type },
          }),
        );
      }
    });
    if (saved) onDone();
  };

  return (
    <form class="card form-grid" onSubmit={(event) => void submit(event)} aria-label={rule ? `Edit rule ${rule.name}` : 'New alert rule'}>
      <h3>{rule ? `Edit “${rule.name}”` : 'New alert rule'}</h3>
      <ErrorMessage error={error} />
      <label class="field">
        <span>Name</span>
        <input name="rule-name" required value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
      </label>
      <label class="field">
        <span>When</span>
        <select
          name="rule-type"
          value={draft.alert_type}
          disabled={Boolean(rule)}
          aria-describedby={rule ? `${prefix}-type-hint` : undefined}
          onChange={(e) => set({ alert_type: e.currentTarget.value as AlertType })}
        >
          {(Object.keys(ALERT_LABELS) as AlertType[]).map((type) => (
            <option key={type} value={type}>
              {ALERT_LABELS[type]}
            </option>
          ))}
        </select>
        {rule && (
          <small class="hint" id={`${prefix}-type-hint`}>
            A rule keeps its kind; create another rule for other alerts.
          </small>
        )}
      </label>
      <fieldset class="field">
        <legend>Notify channels</legend>
        {channels.length === 0 ? (
          <p class="muted small">
            No channels yet. <a href="/settings/channels">Create one in Settings</a>.
          </p>
        ) : (
          <div class="check-list">
            <CheckboxPicker
              options={channels.map((channel) => ({
                id: channel.id,
                label: (
                  <>
                    {channel.name} <span class="muted small">({channel.channel_type}{channel.is_enabled ? '' : ', disabled'})</span>
                  </>
                ),
              }))}
              chosen={draft.channel_ids}
              onChange={(channel_ids) => set({ channel_ids })}
            />
          </div>
        )}
      </fieldset>
      {forRelease ? (
        <ReleaseHealthFields
          prefix={prefix}
          draft={draft.health}
          onChange={(patch) => set({ health: { ...draft.health, ...patch } })}
          knownEnvironments={knownEnvironments}
        />
      ) : forQuotas ? (
        <p class="hint">
          One alert each time a quota of the project is used up: once per UTC day for the daily quota, once per month for the
          monthly one, however many events are refused. The quotas are set in the project's settings under Quotas.
        </p>
      ) : forSpikes ? (
        <p class="hint">
          One alert each time the project's spike protection engages; its limit is set in the project's
          settings under Quotas and spike protection.
        </p>
      ) : (
        <>
          <label class="check rule-assignee">
            <input
              type="checkbox"
              name="rule-notify-assignee"
              checked={draft.notify_assignee}
              aria-describedby={`${prefix}-assignee-hint`}
              onChange={(e) => set({ notify_assignee: e.currentTarget.checked })}
            />
            Also e-mail the issue's assignee
          </label>
          <p class="hint rule-assignee-hint" id={`${prefix}-assignee-hint`}>
            The assigned member, or each member of the assigned team, who has personal e-mail notifications on.
          </p>
          <fieldset class="field rule-conditions">
            <legend>Only for</legend>
            <div class="field">
              <label for={`${prefix}-environments`}>Environments</label>
              <input
                name="rule-environments"
                id={`${prefix}-environments`}
                placeholder="every environment"
                aria-describedby={`${prefix}-environments-hint`}
                value={draft.environments}
                onInput={(e) => set({ environments: e.currentTarget.value })}
              />
              <small class="hint" id={`${prefix}-environments-hint`}>
                Comma-separated. The issue's latest event must come from one of them; empty means every environment.
              </small>
              {knownEnvironments.length > 0 && (
                <div class="env-suggestions" role="group" aria-label="Environments seen in this project">
                  <span class="muted small">Seen in this project:</span>
                  {knownEnvironments.map((env) => {
                    const chosen = splitEnvironments(draft.environments).includes(env);
                    return (
                      <button
                        key={env}
                        type="button"
                        class={chosen ? 'chip chip-on' : 'chip'}
                        aria-pressed={chosen}
                        onClick={() => {
                          const current = splitEnvironments(draft.environments);
                          set({ environments: (chosen ? current.filter((name) => name !== env) : [...current, env]).join(', ') });
                        }}
                      >
                        {env}
                      </button>
                    );
                  })}
                </div>
              )}
            </div>
            <label class="field">
              <span>Minimum level</span>
              <select name="rule-min-level" value={draft.min_level} onChange={(e) => set({ min_level: e.currentTarget.value as Level | '' })}>
                <option value="">Any level</option>
                {LEVELS.map((level) => (
                  <option key={level} value={level}>
                    {levelText(level)}
                  </option>
                ))}
              </select>
              <small class="hint">Compared with the issue's level: debug &lt; info &lt; warning &lt; error &lt; fatal.</small>
            </label>
            {isMonitorRule(draft.alert_type) && (
              <label class="field">
                <span>Monitors</span>
                <select name="rule-monitor-kind" value={draft.monitor_kind} onChange={(e) => set({ monitor_kind: e.currentTarget.value as MonitorKind | '' })}>
                  <option value="">Cron and uptime monitors</option>
                  <option value="cron">Cron monitors only</option>
                  <option value="uptime">Uptime monitors only</option>
                </select>
              </label>
            )}
          </fieldset>
        </>
      )}
      <label class="field">
        <span>Cooldown (minutes)</span>
        <input
          name="rule-cooldown"
          type="number"
          min={0}
          step={1}
          inputMode="numeric"
          required
          value={draft.cooldown_minutes}
          onInput={(e) => set({ cooldown_minutes: e.currentTarget.value })}
        />
        <small class="hint">After an alert for {forRelease ? 'a release' : 'an issue'}, further alerts of this rule for it wait this long.</small>
      </label>
      <EnabledAndActions
        name="rule-enabled"
        enabled={draft.is_enabled}
        onEnabled={(is_enabled) => set({ is_enabled })}
        busy={busy}
        submitLabel={rule ? 'Save rule' : 'Create rule'}
        onCancel={onCancel}
      />
    </form>
  );
}
