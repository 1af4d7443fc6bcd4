import { useCan } from '../access';
import { call, client, UptimeMonitor } from '../api';
import { Empty, ErrorMessage, Loading, ProjectLoadError, RelTime, Sparkline, useAsync, useTitle } from '../components';
import { DataTable } from '../lists';
import { CronMonitorsSection } from './CronMonitorsSection';
import { hostOf, msText, percentText } from '../monitor-words';
import { MutedMark, StatusPill } from './MonitorStatus';
import { ProjectHeader, useProject } from './ProjectHeader';
import { uptimeMonitorUrl } from './UptimeMonitorPage';
import './monitors.css';

/** A project's monitors: its cron jobs and the URLs the server checks, with their state. */
export function MonitorsPage({ projectId }: { projectId: number }) {
  const project = useProject(projectId);
  useTitle(project.data ? `${project.data.name} monitors` : 'Monitors');
  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;
  return (
    <>
      <ProjectHeader project={project.data} active="monitors" />
      <CronMonitorsSection project={project.data} />
      <UptimeMonitorsSection projectId={projectId} />
    </>
  );
}

function UptimeMonitorsSection({ projectId }: { projectId: number }) {
  const canWrite = useCan()('project:write');
  const monitors = useAsync(() => call(client.GET('/api/projects/{projectId}/uptime-monitors', { params: { path: { projectId } } })), [projectId]);
  const rows = monitors.data?.data ?? [];
  return (
    <section class="card monitors-section" aria-labelledby="uptime-title">
      <div class="section-head">
        <h2 id="uptime-title">Uptime monitors</h2>
        {canWrite && (
          <a class="btn btn-small btn-primary" href={`/projects/${projectId}/monitors/uptime/new`}>
            New uptime monitor
          </a>
        )}
      </div>
      <ErrorMessage error={monitors.error} onRetry={monitors.reload} status={monitors.status} />
      {!monitors.data && monitors.loading && <Loading label="Loading uptime monitors…" />}
      {monitors.data && rows.length === 0 && (
        <Empty title="No uptime monitors yet">
          The server requests a URL of yours every minute (or as often as you choose), opens an issue when it stops answering as expected and resolves
          it when it is back, with response times and uptime over 24 hours, 7 and 30 days.{' '}
          {canWrite ? <a href={`/projects/${projectId}/monitors/uptime/new`}>Add the first one</a> : 'Ask a member of the project to add one.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <DataTable
          class="monitors-table"
          wrapClass="flat"
          columns={[
            'Monitor',
            'Status',
            { label: 'Response', class: 'num' },
            { label: 'Last 24 h', class: 'col-trend' },
            { label: 'Uptime 24 h', class: 'num' },
            { label: 'Uptime 7 d', class: 'num' },
            { label: 'Uptime 30 d', class: 'num' },
            'Last checked',
          ]}
        >
          {rows.map((monitor) => (
            <UptimeRow key={monitor.id} projectId={projectId} monitor={monitor} />
          ))}
        </DataTable>
      )}
    </section>
  );
}

function UptimeRow({ projectId, monitor }: { projectId: number; monitor: UptimeMonitor }) {
  // Hours without a timed check are left out: the line joins the hours that have one.
  const times = monitor.response_ms_24h.filter((ms): ms is number => ms !== null);
  return (
    <tr>
      <td data-label="Monitor">
        <a class="monitor-name" href={uptimeMonitorUrl(projectId, monitor.id)}>
          {monitor.name}
        </a>
        <span class="monitor-sub">{hostOf(monitor)}</span>
      </td>
      <td data-label="Status">
        <span class="env-pills">
          <StatusPill status={monitor.status} />
          <MutedMark muted={monitor.muted} />
        </span>
      </td>
      <td class="num" data-label="Response">
        {msText(monitor.last_response_ms)}
      </td>
      <td class="col-trend" data-label="Last 24 h">
        {times.length > 1 ? (
          <Sparkline counts={times} label={`Mean response time per hour over the last 24 hours, up to ${msText(Math.max(...times))}`} />
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <td class="num" data-label="Uptime 24 h">
        {percentText(monitor.uptime['24h'])}
      </td>
      <td class="num" data-label="Uptime 7 d">
        {percentText(monitor.uptime['7d'])}
      </td>
      <td class="num" data-label="Uptime 30 d">
        {percentText(monitor.uptime['30d'])}
      </td>
      <td data-label="Last checked">
        <RelTime value={monitor.last_checked_at} />
      </td>
    </tr>
  );
}
