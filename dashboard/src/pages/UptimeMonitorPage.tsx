import { useState } from 'preact/hooks';
import { call, client, UptimeCheck, UptimeMonitor, UptimePeriod } from '../api';
import { BarChart } from '../bar-chart';
import { Empty, ErrorMessage, Loading, RelTime, useAsync, useTitle } from '../components';
import { DataTable } from '../lists';
import { navigate } from '../router';
import { exactTime, plural } from '../util';
import { PeriodSwitch } from './EventChart';
import { MonitorActions } from './MonitorActions';
import { intervalText, msText, percentText } from '../monitor-words';
import { MonitorIssueLink, MutedMark, StatusPill } from './MonitorStatus';
import { MonitorFrame } from './MonitorFrame';
import './monitors.css';

export const UPTIME_PERIODS: { value: UptimePeriod; label: string }[] = [
  { value: '24h', label: 'last 24 hours' },
  { value: '7d', label: 'last 7 days' },
  { value: '30d', label: 'last 30 days' },
];

const ERRORS_SHOWN = 20;

function pointTime(point: UptimeCheck, period: UptimePeriod): string {
  const date = new Date(point.t);
  return period === '24h'
    ? date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })
    : date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric' });
}

function pointTitle(point: UptimeCheck, period: UptimePeriod): string {
  const when = `${new Date(point.t).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' })}`;
  if (point.checks > 1) {
    const failed = point.failures > 0 ? `, ${plural(point.failures, 'failed check')}` : ', all passed';
    return `${when} (${period === '7d' ? 'hour' : '6 hours'}): mean ${msText(point.response_ms)} over ${plural(point.checks, 'check')}${failed}`;
  }
  const outcome = point.ok ? 'passed' : `failed${point.error ? `: ${point.error}` : ''}`;
  return `${when}: ${msText(point.response_ms)}${point.status_code ? `, HTTP ${point.status_code}` : ''}, ${outcome}`;
}

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

export function UptimeChecks({ projectId, monitorId }: { projectId: number; monitorId: number }) {
  const [period, setPeriod] = useState<UptimePeriod>('24h');
  const checks = useAsync(
    () =>
      call(
        client.GET('/api/projects/{projectId}/uptime-monitors/{monitorId}/checks', {
          params: { path: { projectId, monitorId }, query: { period } },
        }),
      ),
    [projectId, monitorId, period],
  );
  const points = checks.data?.data ?? [];
  const failed = points.filter((point) => !point.ok).reverse();
  const max = Math.max(0, ...points.map((point) => point.response_ms ?? 0));
  const label = UPTIME_PERIODS.find((option) => option.value === period)?.label ?? period;
  const middle = points[Math.floor(points.length / 2)];
  return (
    <>
      <section class="card" aria-labelledby="response-title">
        <div class="chart-head">
          <h2 id="response-title">Response times · {label}</h2>
          <PeriodSwitch period={period} onChoose={setPeriod} label="Chart period" options={UPTIME_PERIODS} />
        </div>
        <ErrorMessage error={checks.error} onRetry={checks.reload} status={checks.status} />
        {!checks.data && checks.loading && <Loading label="Loading checks…" />}
        {checks.data && points.length === 0 && (
          <Empty title="No checks in this period">The first check runs within one interval of creating the monitor.</Empty>
        )}
        {points.length > 0 && (
          <figure class={checks.loading ? 'chart is-loading' : 'chart'}>
            <BarChart
              bars={points.map((point) => ({
                key: point.t,
                value: point.response_ms ?? 0,
                title: pointTitle(point, period),
                kind: point.ok ? undefined : 'failed',
                data: { ok: String(point.ok) },
              }))}
              label={`Response times in the ${label}: ${plural(points.length, period === '24h' ? 'check' : 'point')}, ${failed.length} failed`}
              listLabel="Response times"
              labels={[pointTime(points[0], period), ...(middle ? [pointTime(middle, period)] : []), 'now']}
              maxLabel={msText(max)}
            />
            <figcaption class="chart-legend small muted">
              <span class="legend-item">
                <span class="key ok" aria-hidden="true" /> passed
              </span>{' '}
              <span class="legend-item">
                <span class="key failed" aria-hidden="true" /> failed (red)
              </span>
            </figcaption>
          </figure>
        )}
      </section>
      <section class="card" aria-labelledby="failures-title">
        <h2 id="failures-title">Failed checks · {label}</h2>
        {checks.data && failed.length === 0 && <Empty title="No failed checks in this period" />}
        {failed.length > 0 && (
          <DataTable class="check-errors" wrapClass="flat" columns={['When', 'Status', 'Error', { label: 'Response', class: 'num' }]}>
            {failed.slice(0, ERRORS_SHOWN).map((point) => (
              <tr key={point.t}>
                <td data-label="When">
                  <RelTime value={point.t} />
                </td>
                <td data-label="Status">
                  {point.status_code ? `HTTP ${point.status_code}` : point.checks > 1 ? plural(point.failures, 'failure') : '—'}
                </td>
                <td data-label="Error">{point.error ?? <span class="muted">—</span>}</td>
                <td class="num" data-label="Response">
                  {msText(point.response_ms)}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </>
  );
}
