import { useState } from 'preact/hooks';
import { useCan } from '../access';
import { AlertType, call, Channel, client, errorMessage, Rule } from '../api';
import { Badge, CheckboxPicker, Empty, EnabledAndActions, ErrorMessage, Loading, ProjectLoadError, RelTime, useAsync, useTitle } from '../components';
import { plural } from '../util';
import { ProjectHeader, useProject } from './ProjectHeader';

/** The filters a rule's `conditions` may hold (src/rules/rule-conditions.ts); none means every issue. */
type RuleConditions = {
  environments?: string[];
  min_level?: Level;
};

const LEVELS = ['debug', 'info', 'warning', 'error', 'fatal'] as const;
type Level = (typeof LEVELS)[number];

function conditionsOf(rule?: Rule): RuleConditions {
  const raw = rule?.conditions ?? {};
  const environments = Array.isArray(raw.environments) ? raw.environments.filter((env): env is string => typeof env === 'string') : [];
  const level = typeof raw.min_level === 'string' && (LEVELS as readonly string[]).includes(raw.min_level) ? (raw.min_level as Level) : undefined;
  return { ...(environments.length ? { environments } : {}), ...(level ? { min_level: level } : {}) };
}

function splitEnvironments(text: string): string[] {
  return [...new Set(text.split(',').map((env) => env.trim()).filter(Boolean))];
}

function levelText(level: Level): string {
  return level === 'fatal' ? 'fatal only' : `${level} or worse`;
}

/** `Environments: production, staging · Level: error or worse`; `any` where a filter is not set. */
function describeConditions(conditions: RuleConditions): string {
  const environments = conditions.environments?.length ? conditions.environments.join(', ') : 'any';
  return `Environments: ${environments} · Level: ${conditions.min_level ? levelText(conditions.min_level) : 'any'}`;
}

/** Short names of the alert types, for badges and the history. */
const ALERT_NAMES: Record<AlertType, string> = {
  new_issue: 'New issue',
  regression: 'Regression',
  unmute: 'Unmuted',
};

const ALERT_LABELS: Record<AlertType, string> = {
  new_issue: 'New issue',
  regression: 'Regression (resolved issue seen again)',
  unmute: 'Unmute (muted issue reopened)',
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
  notify_assignee: boolean;
}

function RuleForm({
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
      notify_assignee: rule?.notify_assignee ?? false,
    };
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (patch: Partial<RuleDraft>) => setDraft({ ...draft, ...patch });
  const prefix = rule ? `rule-${rule.id}` : 'rule-new';

  const submit = async (event: Event) => {
    event.preventDefault();
    const cooldown = Number(draft.cooldown_minutes);
    if (!Number.isInteger(cooldown) || cooldown < 0) {
      setError('Cooldown must be a whole number of minutes (0 or more).');
      return;
    }
    setBusy(true);
    setError(null);
    const environments = splitEnvironments(draft.environments);
    const conditions: RuleConditions = {
      ...(environments.length ? { environments } : {}),
      ...(draft.min_level ? { min_level: draft.min_level } : {}),
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
    try {
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
      onDone();
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
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
      </fieldset>
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
        <small class="hint">After an alert for an issue, further alerts of this rule for it wait this long.</small>
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

const STATUS_KIND: Record<string, string> = { sent: 'resolved', failed: 'failed', pending: 'pending', skipped: 'muted' };

export function ProjectAlertsPage({ projectId }: { projectId: number }) {
  const project = useProject(projectId);
  useTitle(project.data ? `${project.data.name} alerts` : 'Alerts');
  const can = useCan();
  const manage = can('project:write');
  const seesChannels = can('channels:read');
  const rules = useAsync(
    () => call(client.GET('/api/projects/{projectId}/alert-rules', { params: { path: { projectId } } })),
    [projectId],
  );
  // Viewers may not see the channels (their addresses are secrets): rules then name them by count.
  const channels = useAsync(
    () => (seesChannels ? call(client.GET('/api/alert-channels')) : Promise.resolve([] as Channel[])),
    [seesChannels],
  );
  const [limit, setLimit] = useState(50);
  const history = useAsync(
    () => call(client.GET('/api/projects/{projectId}/alert-history', { params: { path: { projectId }, query: { limit } } })),
    [projectId, limit],
  );
  // Suggestions only: the rule form works without them.
  const environments = useAsync(
    () =>
      call(client.GET('/api/projects/{id}/environments', { params: { path: { id: projectId } } }))
        .then((page) => page.data.map((env) => env.name))
        .catch(() => [] as string[]),
    [projectId],
  );
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<number | null>(null);

  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;

  const channelList = Array.isArray(channels.data) ? channels.data : [];
  const channelName = (id: number) => channelList.find((channel) => channel.id === id)?.name ?? `#${id}`;
  const ruleList = Array.isArray(rules.data) ? rules.data : [];
  const historyList = Array.isArray(history.data) ? history.data : [];
  const knownEnvironments = Array.isArray(environments.data) ? environments.data : [];

  const done = () => {
    setEditing(null);
    rules.reload();
  };

  const toggle = async (rule: Rule) => {
    const replace = (value: Partial<Rule>) => rules.setData(ruleList.map((r) => (r.id === rule.id ? { ...r, ...value } : r)));
    setPending(rule.id);
    setError(null);
    replace({ is_enabled: !rule.is_enabled });
    try {
      const updated = await call(
        client.PATCH('/api/projects/{projectId}/alert-rules/{ruleId}', {
          params: { path: { projectId, ruleId: rule.id } },
          body: { is_enabled: !rule.is_enabled },
        }),
      );
      replace(updated);
    } catch (failure) {
      replace({ is_enabled: rule.is_enabled });
      setError(errorMessage(failure));
    } finally {
      setPending(null);
    }
  };

  const remove = async (rule: Rule) => {
    if (!window.confirm(`Delete the alert rule "${rule.name}"?`)) return;
    setPending(rule.id);
    setError(null);
    try {
      await call(
        client.DELETE('/api/projects/{projectId}/alert-rules/{ruleId}', { params: { path: { projectId, ruleId: rule.id } } }),
      );
      rules.reload();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setPending(null);
    }
  };

  return (
    <>
      <ProjectHeader project={project.data} active="alerts" />
      <section aria-labelledby="rules-title">
        <div class="section-head">
          <h2 id="rules-title">Alert rules</h2>
          {manage && editing !== 'new' && (
            <button type="button" class="btn btn-primary" onClick={() => setEditing('new')}>
              New rule
            </button>
          )}
        </div>
        <ErrorMessage error={channels.error ? `Channels could not be loaded: ${channels.error}` : null} />
        {editing === 'new' && (
          <RuleForm projectId={projectId} channels={channelList} knownEnvironments={knownEnvironments} onDone={done} onCancel={() => setEditing(null)} />
        )}
        <ErrorMessage error={error} />
        <ErrorMessage error={rules.error} onRetry={rules.reload} />
        {rules.loading && !rules.data && <Loading label="Loading rules…" />}
        {rules.data && ruleList.length === 0 && editing !== 'new' && (
          <Empty title="No alert rules yet.">
            {manage
              ? 'Create a rule to be notified about new issues, regressions or unmuted issues.'
              : 'A member of the project’s team or an admin can create rules.'}
          </Empty>
        )}
        <ul class="rule-list">
          {ruleList.map((rule) =>
            editing === rule.id ? (
              <li key={rule.id}>
                <RuleForm
                  projectId={projectId}
                  rule={rule}
                  channels={channelList}
                  knownEnvironments={knownEnvironments}
                  onDone={done}
                  onCancel={() => setEditing(null)}
                />
              </li>
            ) : (
              <li key={rule.id} class="card rule-card">
                <div class="rule-main">
                  <h3>
                    {rule.name} {!rule.is_enabled && <Badge kind="muted">disabled</Badge>}
                  </h3>
                  <p class="small">
                    <Badge kind="neutral">{ALERT_NAMES[rule.alert_type]}</Badge> →{' '}
                    {rule.channel_ids.length === 0 ? (
                      <span class="muted">no channels</span>
                    ) : seesChannels ? (
                      rule.channel_ids.map(channelName).join(', ')
                    ) : (
                      plural(rule.channel_ids.length, 'channel')
                    )}
                    {rule.notify_assignee && <span> · e-mails the assignee</span>}
                    <span class="muted"> · cooldown {rule.cooldown_minutes} min</span>
                  </p>
                  <p class="small muted rule-filter">{describeConditions(conditionsOf(rule))}</p>
                </div>
                {manage && (
                  <div class="channel-actions">
                    <label class="switch">
                      <input type="checkbox" checked={rule.is_enabled} onChange={() => void toggle(rule)} aria-label={`Enable rule ${rule.name}`} />
                      <span>{rule.is_enabled ? 'Enabled' : 'Disabled'}</span>
                    </label>
                    <button type="button" class="btn btn-small" onClick={() => setEditing(rule.id)} aria-label={`Edit rule ${rule.name}`}>
                      Edit
                    </button>
                    <button type="button" class="btn btn-small btn-danger" disabled={pending === rule.id} onClick={() => void remove(rule)} aria-label={`Delete rule ${rule.name}`}>
                      Delete
                    </button>
                  </div>
                )}
              </li>
            ),
          )}
        </ul>
      </section>

      <section aria-labelledby="history-title" class="history">
        <div class="section-head">
          <h2 id="history-title">Alert history</h2>
          <div class="inline-controls">
            <label class="inline-field">
              <span>Show</span>
              <select value={String(limit)} onChange={(e) => setLimit(Number(e.currentTarget.value))}>
                {[20, 50, 100, 500].map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" class="btn btn-small" onClick={history.reload} disabled={history.loading}>
              Refresh
            </button>
          </div>
        </div>
        <ErrorMessage error={history.error} onRetry={history.reload} />
        {history.loading && !history.data && <Loading label="Loading history…" />}
        {history.data && historyList.length === 0 && <Empty title="No alerts sent yet." />}
        {historyList.length > 0 && (
          <div class="table-wrap">
            <table class="data-table">
              <thead>
                <tr>
                  <th>Created</th>
                  <th>Type</th>
                  <th>Channel</th>
                  <th>Status</th>
                  <th>Issue</th>
                  <th>Sent</th>
                  <th>Error</th>
                </tr>
              </thead>
              <tbody>
                {historyList.map((entry) => (
                  <tr key={entry.id}>
                    <td data-label="Created">
                      <RelTime value={entry.created_at} />
                    </td>
                    <td data-label="Type">{ALERT_NAMES[entry.alert_type as AlertType] ?? entry.alert_type}</td>
                    <td data-label="Channel">
                      {entry.channel_name} <span class="muted small">({entry.channel_type})</span>
                    </td>
                    <td data-label="Status">
                      <Badge kind={STATUS_KIND[entry.status] ?? 'neutral'}>{entry.status}</Badge>
                    </td>
                    <td data-label="Issue">
                      {entry.issue_id ? (
                        <a href={`/issues/${entry.issue_id}`} class="mono">
                          {entry.issue_short_id ?? `#${entry.issue_id}`}
                        </a>
                      ) : (
                        <span class="muted" title="The issue was deleted">
                          —
                        </span>
                      )}
                    </td>
                    <td data-label="Sent">{entry.sent_at ? <RelTime value={entry.sent_at} /> : <span class="muted">—</span>}</td>
                    <td data-label="Error" class="error-text">
                      {entry.error ?? ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
