import { call, client, UptimeMonitor } from '../api';
import { RelTime, useAsync, useTitle } from '../components';
import { navigate } from '../router';
import { exactTime } from '../util';
import { MonitorActions } from './MonitorActions';
import { intervalText, msText, percentText } from '../monitor-words';
import { MonitorIssueLink, MutedMark, StatusPill } from './MonitorStatus';
import { MonitorFrame } from './MonitorFrame';
import './monitors.css';
import { UptimeChecks } from './UptimeCharts';

export function uptimeMonitorUrl(projectId: number, monitorId: number): string {
  return `/projects/${projectId}/monitors/uptime/${monitorId}`;
}

/** One uptime monitor: its state, response times over a period, uptime, failed checks, TLS expiry. */
export function UptimeMonitorPage({ projectId, monitorId }: { projectId: number; monitorId: number }) {
  const monitor = useAsync(
    () =>
      call(
        client.GET('/api/projects/{projectId}/uptime-monitors/{monitorId}', {
          params: { path: { projectId, monitorId } },
        }),
      ),
    [projectId, monitorId],
  );
  useTitle(monitor.data?.name ?? 'Uptime monitor');
  const save = async (muted: boolean) =>
    monitor.setData(
      await call(
        client.PATCH('/api/projects/{projectId}/uptime-monitors/{monitorId}', {
          params: { path: { projectId, monitorId } },
          body: { muted },
        }),
      ),
    );
  const remove = async () => {
    await call(
      client.DELETE('/api/projects/{projectId}/uptime-monitors/{monitorId}', {
        params: { path: { projectId, monitorId } },
      }),
    );
    navigate(`/projects/${projectId}/monitors`);
  };
  return (
    <MonitorFrame projectId={projectId} monitor={monitor} missing="This project has no such uptime monitor; it may have been deleted.">
      {(_, data) =>
        data && (
          <>
            <header class="card">
              <div class="monitor-head">
                <h1>{data.name}</h1>
                <StatusPill status={data.status} />
                <MutedMark muted={data.muted} />
              </div>
              <p class="monitor-url">
                {data.method} {data.url}
              </p>
              {data.status === 'down' && data.last_error && (
                <div class="alert alert-error" role="status">
                  <span>Last check failed: {data.last_error}</span>
                </div>
              )}
              <UptimeFigures monitor={data} />
              <MonitorActions
                muted={data.muted}
                editHref={`${uptimeMonitorUrl(projectId, monitorId)}/edit`}
                mute={save}
                remove={remove}
                what="Its checks and their history are deleted; its issue stays."
              />
            </header>
            <UptimeChecks projectId={projectId} monitorId={monitorId} />
          </>
        )
      }
    </MonitorFrame>
  );
}

function UptimeFigures({ monitor }: { monitor: UptimeMonitor }) {
  const tlsSoon =
    monitor.tls_expires_at &&
    monitor.tls_expiry_days > 0 &&
    new Date(monitor.tls_expires_at).getTime() - Date.now() < monitor.tls_expiry_days * 86_400_000;
  return (
    <dl class="monitor-figures">
      <div>
        <dt>Uptime 24 h</dt>
        <dd>{percentText(monitor.uptime['24h'])}</dd>
      </div>
      <div>
        <dt>Uptime 7 d</dt>
        <dd>{percentText(monitor.uptime['7d'])}</dd>
      </div>
      <div>
        <dt>Uptime 30 d</dt>
        <dd>{percentText(monitor.uptime['30d'])}</dd>
      </div>
      <div>
        <dt>Last response</dt>
        <dd>
          {msText(monitor.last_response_ms)}
          {monitor.last_status_code ? ` · HTTP ${monitor.last_status_code}` : ''}
        </dd>
      </div>
      <div>
        <dt>Last checked</dt>
        <dd>
          <RelTime value={monitor.last_checked_at} />
        </dd>
      </div>
      <div>
        <dt>Checked every</dt>
        <dd>{intervalText(monitor.interval_seconds)}</dd>
      </div>
      <div>
        <dt>TLS certificate</dt>
        <dd>
          {monitor.tls_expires_at ? (
            <span class={tlsSoon ? 'text-danger' : undefined} title={exactTime(monitor.tls_expires_at)}>
              {tlsSoon ? '⚠ ' : ''}expires <RelTime value={monitor.tls_expires_at} />
            </span>
          ) : (
            <span class="muted">{monitor.url.startsWith('https:') ? 'not seen yet' : 'none (http)'}</span>
          )}
        </dd>
      </div>
      <div>
        <dt>Issue</dt>
        <dd>
          <MonitorIssueLink issue={monitor.issue} />
        </dd>
      </div>
    </dl>
  );
}
