import { useState } from 'preact/hooks';
import { useCan } from '../access';
import { call, Channel, client, Rule } from '../api';
import { Badge, Empty, ErrorMessage, Loading, ProjectLoadError, useAsync, useTitle } from '../components';
import { useEnabledSwitch } from '../actions';
import { plural } from '../util';
import { AlertHistory } from './AlertHistory';
import { ALERT_NAMES, describeRuleConditions, RuleForm } from './AlertRuleForm';
import { ProjectHeader, useProject } from './ProjectHeader';

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
  // Suggestions only: the rule form works without them.
  const environments = useAsync(
    () =>
      call(client.GET('/api/projects/{id}/environments', { params: { path: { id: projectId } } }))
        .then((page) => page.data.map((env) => env.name))
        .catch(() => [] as string[]),
    [projectId],
  );
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const ruleList = Array.isArray(rules.data) ? rules.data : [];
  const { pending, error, act, toggle: switchRow } = useEnabledSwitch(ruleList, rules.setData);

  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;

  const channelList = Array.isArray(channels.data) ? channels.data : [];
  const channelName = (id: number) => channelList.find((channel) => channel.id === id)?.name ?? `#${id}`;
  const knownEnvironments = Array.isArray(environments.data) ? environments.data : [];

  const done = () => {
    setEditing(null);
    rules.reload();
  };

  const toggle = (rule: Rule) =>
    switchRow(rule, (is_enabled) =>
      call(client.PATCH('/api/projects/{projectId}/alert-rules/{ruleId}', { params: { path: { projectId, ruleId: rule.id } }, body: { is_enabled } })),
    );

  const remove = async (rule: Rule) => {
    if (!window.confirm(`Delete the alert rule "${rule.name}"?`)) return;
    await act(rule.id, async () => {
      await call(client.DELETE('/api/projects/{projectId}/alert-rules/{ruleId}', { params: { path: { projectId, ruleId: rule.id } } }));
      rules.reload();
    });
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
                  <p class="small muted rule-filter">{describeRuleConditions(rule)}</p>
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

      <AlertHistory projectId={projectId} />
    </>
  );
}
