import { useCan } from '../access';
import { call, client, CronMonitor, Project } from '../api';
import { Empty, ErrorMessage, Loading, RelTime, useAsync } from '../components';
import { DataTable } from '../lists';
import { cronMonitorUrl } from './CronMonitorPage';
import { CronSetup } from './CronSetup';
import { MutedMark, StatusPill } from './MonitorStatus';
import './monitors.css';

/** What the empty list's snippets show: a monitor made by its first check-in. */
const EXAMPLE = {
  slug: 'nightly-backup',
  schedule: { type: 'crontab' as const, value: '0 3 * * *' },
  timezone: 'UTC',
  checkin_margin: 5,
  max_runtime: 30,
};

/** The project's cron monitors: their state per environment, schedule in words, next and last run. */
export function CronMonitorsSection({ project }: { project: Project }) {
  const projectId = project.id;
  const canWrite = useCan()('project:write');
  const monitors = useAsync(() => call(client.GET('/api/projects/{id}/monitors', { params: { path: { id: projectId } } })), [projectId]);
  const rows = monitors.data?.data ?? [];
  return (
    <section class="card monitors-section" aria-labelledby="cron-title">
      <div class="section-head">
        <h2 id="cron-title">Cron monitors</h2>
        {canWrite && (
          <a class="btn btn-small btn-primary" href={`/projects/${projectId}/monitors/cron/new`}>
            New cron monitor
          </a>
        )}
      </div>
      <ErrorMessage error={monitors.error} onRetry={monitors.reload} status={monitors.status} />
      {!monitors.data && monitors.loading && <Loading label="Loading cron monitors…" />}
      {monitors.data && rows.length === 0 && (
        <>
          <Empty title="No cron monitors yet">
            A cron monitor expects your scheduled jobs to check in, and opens an issue when a run is missed, fails or never ends. The first check-in
            that carries a schedule creates the monitor: wrap the job with one of these snippets
            {canWrite ? (
              <>
                , or <a href={`/projects/${projectId}/monitors/cron/new`}>create it here</a> first
              </>
            ) : null}
            .
          </Empty>
          <CronSetup project={project} monitor={EXAMPLE} />
        </>
      )}
      {rows.length > 0 && (
        <DataTable class="monitors-table cron-table" wrapClass="flat" columns={['Monitor', 'Status', 'Schedule', 'Next expected', 'Last check-in']}>
          {rows.map((monitor) => (
            <CronRow key={monitor.id} projectId={projectId} monitor={monitor} />
          ))}
        </DataTable>
      )}
    </section>
  );
}

function CronRow({ projectId, monitor }: { projectId: number; monitor: CronMonitor }) {
  return (
    <tr>
      <td data-label="Monitor">
        <a class="monitor-name" href={cronMonitorUrl(projectId, monitor.slug)}>
          {monitor.name}
        </a>
        <span class="monitor-sub mono">{monitor.slug}</span>
      </td>
      <td data-label="Status">
        <span class="env-pills">
          {monitor.environments.length === 0 ? (
            <StatusPill status={monitor.status} />
          ) : (
            monitor.environments.map((environment) => (
              <StatusPill key={environment.environment} status={environment.status} label={environment.environment} small />
            ))
          )}
          <MutedMark muted={monitor.muted} />
        </span>
      </td>
      <td data-label="Schedule">
        {monitor.schedule_description}
        {monitor.timezone !== 'UTC' && <span class="monitor-sub">{monitor.timezone}</span>}
      </td>
      <td data-label="Next expected">
        <RelTime value={monitor.next_expected_at} />
      </td>
      <td data-label="Last check-in">
        <RelTime value={monitor.last_check_in_at} />
      </td>
    </tr>
  );
}
