import { call, client, Issue } from '../api';
import { ErrorMessage, Loading, useAsync } from '../components';
import { CheckIns, cronMonitorUrl } from './CronMonitorPage';
import { StatusPill } from './MonitorStatus';
import { UptimeChecks } from './UptimeCharts';
import { uptimeMonitorUrl } from './UptimeMonitorPage';
import './monitors.css';

type IssueMonitor = NonNullable<Issue['monitor']>;

/** Said where the monitor was: its issue stays when the monitor is deleted. */
function MonitorGone({ kind }: { kind: IssueMonitor['kind'] }) {
  return (
    <section class="card monitor-issue" aria-label="Monitor">
      <h2>{kind === 'cron' ? 'Cron monitor' : 'Uptime monitor'}</h2>
      <p class="muted">The monitor was deleted, and its check history with it; this issue stays.</p>
    </section>
  );
}

function CronIssuePanel({ projectId, monitor: ref }: { projectId: number; monitor: IssueMonitor }) {
  // A project has at most a few hundred monitors: the list finds this one by its id.
  const monitors = useAsync(
    () => call(client.GET('/api/projects/{id}/monitors', { params: { path: { id: projectId } } })),
    [projectId],
  );
  if (monitors.error) return <ErrorMessage error={monitors.error} status={monitors.status} onRetry={monitors.reload} />;
  if (!monitors.data) return <Loading label="Loading the monitor…" />;
  const monitor = monitors.data.data.find((candidate) => candidate.id === ref.monitor_id);
  if (!monitor) return <MonitorGone kind="cron" />;
  const environment = monitor.environments.find((candidate) => candidate.environment === ref.environment);
  return (
    <>
      <section class="card monitor-issue" aria-label="Monitor">
        <h2>
          Cron monitor <a href={cronMonitorUrl(projectId, monitor.slug)}>{monitor.name}</a>
        </h2>
        <p class="monitor-sub">
          {environment && <StatusPill status={environment.status} small />} in <strong>{ref.environment}</strong> ·{' '}
          {monitor.schedule_description}
          {monitor.timezone !== 'UTC' ? ` (${monitor.timezone})` : ''}
        </p>
        <p class="muted small">Each failed run counts as one event of this issue: a missed run, an error, or a run that never reported its end.</p>
      </section>
      <CheckIns projectId={projectId} monitor={monitor} initialEnvironment={ref.environment} initialFailuresOnly />
    </>
  );
}

function UptimeIssuePanel({ projectId, monitor: ref }: { projectId: number; monitor: IssueMonitor }) {
  const monitor = useAsync(
    () =>
      call(
        client.GET('/api/projects/{projectId}/uptime-monitors/{monitorId}', {
          params: { path: { projectId, monitorId: ref.monitor_id } },
        }),
      ),
    [projectId, ref.monitor_id],
  );
  if (monitor.status === 404) return <MonitorGone kind="uptime" />;
  if (monitor.error) return <ErrorMessage error={monitor.error} status={monitor.status} onRetry={monitor.reload} />;
  if (!monitor.data) return <Loading label="Loading the monitor…" />;
  return (
    <>
      <section class="card monitor-issue" aria-label="Monitor">
        <h2>
          Uptime monitor <a href={uptimeMonitorUrl(projectId, monitor.data.id)}>{monitor.data.name}</a>
        </h2>
        <p class="monitor-sub">
          <StatusPill status={monitor.data.status} small /> <span class="mono">{monitor.data.method} {monitor.data.url}</span>
        </p>
        <p class="muted small">Each failed check counts as one event of this issue.</p>
      </section>
      <UptimeChecks projectId={projectId} monitorId={monitor.data.id} />
    </>
  );
}

/**
 * What a monitor's issue shows instead of events (a monitor's failures are not events): the
 * monitor, linked, and its failures on its own timeline.
 */
export function MonitorIssuePanel({ issue }: { issue: Issue }) {
  if (!issue.monitor) return null;
  return issue.monitor.kind === 'cron' ? (
    <CronIssuePanel projectId={issue.project_id} monitor={issue.monitor} />
  ) : (
    <UptimeIssuePanel projectId={issue.project_id} monitor={issue.monitor} />
  );
}
