import { useState } from 'preact/hooks';
import { call, client, UptimeCheck, UptimePeriod } from '../api';
import { BarChart } from '../bar-chart';
import { Empty, ErrorMessage, Loading, RelTime, useAsync } from '../components';
import { DataTable } from '../lists';
import { msText } from '../monitor-words';
import { exactTime, plural } from '../util';
import { PeriodSwitch } from './EventChart';

export const UPTIME_PERIODS: { value: UptimePeriod; label: string }[] = [
  { value: '24h', label: 'last 24 hours' },
  { value: '7d', label: 'last 7 days' },
  { value: '30d', label: 'last 30 days' },
];

/** Each period's bucket, as the server cuts it (see the API's series). */
const BUCKET_WORDS: Record<UptimePeriod, string> = { '24h': '30 minutes', '7d': 'hour', '30d': '6 hours' };

/** A bucket's start on the time axis: a time of day for 24 hours, a date for longer periods. */
function axisLabel(point: UptimeCheck, period: UptimePeriod): string {
  const date = new Date(point.t);
  return period === '24h'
    ? date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

function bucketTitle(point: UptimeCheck, period: UptimePeriod): string {
  const when = new Date(point.t).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
  const span = `${when} (${BUCKET_WORDS[period]})`;
  if (point.checks === 0) return `${span}: no checks`;
  const outcome = point.failures === 0 ? 'all passed' : `${point.failures} of ${point.checks} failed`;
  return `${span}: ${plural(point.checks, 'check')}, ${outcome}, mean ${msText(point.response_ms)}`;
}

/** A bucket's failures in words and as a share, for its cell of the strip. */
function failureClass(point: UptimeCheck): string {
  if (point.checks === 0) return 'share-cell share-none';
  if (point.failures === 0) return 'share-cell share-ok';
  return point.failures === point.checks ? 'share-cell share-all' : 'share-cell share-some';
}

/**
 * Under the response times, each bucket's share of failed checks: a cell filled in red as far as
 * its checks failed (11 of 20 fills 55 %), grey where no check ran. One partly failed hour is one
 * thin, partly filled cell of its week, never the week in red.
 */
function FailureStrip({ points, period }: { points: UptimeCheck[]; period: UptimePeriod }) {
  const failed = points.filter((point) => point.failures > 0);
  return (
    <div
      class="failure-strip"
      role="img"
      aria-label={failed.length === 0 ? 'No failed checks' : `Failed checks in ${plural(failed.length, BUCKET_WORDS[period] === 'hour' ? 'hour' : 'bucket')}`}
    >
      {points.map((point) => (
        <span key={point.t} class={failureClass(point)} title={bucketTitle(point, period)} data-failures={point.failures} data-checks={point.checks}>
          {point.failures > 0 && <span class="share-fill" style={{ height: `${((point.failures / point.checks) * 100).toFixed(1)}%` }} />}
        </span>
      ))}
    </div>
  );
}

function FailedChecks({ projectId, monitorId, period, label }: { projectId: number; monitorId: number; period: UptimePeriod; label: string }) {
  const failures = useAsync(
    () =>
      call(
        client.GET('/api/projects/{projectId}/uptime-monitors/{monitorId}/failures', {
          params: { path: { projectId, monitorId }, query: { period } },
        }),
      ),
    [projectId, monitorId, period],
  );
  const list = failures.data?.data ?? [];
  return (
    <section class="card" aria-labelledby="failures-title">
      <h2 id="failures-title">Failed checks · {label}</h2>
      <ErrorMessage error={failures.error} onRetry={failures.reload} status={failures.status} />
      {!failures.data && failures.loading && <Loading label="Loading failed checks…" />}
      {failures.data && list.length === 0 && <Empty title="No failed checks in this period" />}
      {list.length > 0 && (
        <DataTable class="check-errors" wrapClass="flat" columns={['When', 'Status', 'Error', { label: 'Response', class: 'num' }]}>
          {list.map((failure) => (
            <tr key={failure.at}>
              <td data-label="When">
                {failure.until === null ? (
                  <RelTime value={failure.at} />
                ) : (
                  <span title={`${exactTime(failure.at)} to ${exactTime(failure.until)}`}>
                    {new Date(failure.at).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric' })}, the hour
                  </span>
                )}
              </td>
              <td data-label="Status">
                {failure.status_code ? `HTTP ${failure.status_code}` : failure.until !== null ? `${failure.failures} of ${failure.checks} failed` : '—'}
              </td>
              <td data-label="Error">{failure.error ?? <span class="muted">—</span>}</td>
              <td class="num" data-label="Response">
                {msText(failure.response_ms)}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {list.length > 0 && list.some((failure) => failure.until !== null) && (
        <p class="muted small">Each check is listed for the last hours kept; before that, the hours that had failed checks.</p>
      )}
    </section>
  );
}

/** An uptime monitor's response times and failures over a period, on a real time axis. */
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
  const checked = points.filter((point) => point.checks > 0);
  const max = Math.max(0, ...points.map((point) => point.response_ms ?? 0));
  const label = UPTIME_PERIODS.find((option) => option.value === period)?.label ?? period;
  const failedChecks = points.reduce((sum, point) => sum + point.failures, 0);
  const allChecks = points.reduce((sum, point) => sum + point.checks, 0);
  return (
    <>
      <section class="card" aria-labelledby="response-title">
        <div class="chart-head">
          <h2 id="response-title">Response times · {label}</h2>
          <PeriodSwitch period={period} onChoose={setPeriod} label="Chart period" options={UPTIME_PERIODS} />
        </div>
        <ErrorMessage error={checks.error} onRetry={checks.reload} status={checks.status} />
        {!checks.data && checks.loading && <Loading label="Loading checks…" />}
        {checks.data && checked.length === 0 && (
          <Empty title="No checks in this period">The first check runs within one interval of creating the monitor.</Empty>
        )}
        {checked.length > 0 && (
          <figure class={checks.loading ? 'chart is-loading' : 'chart'}>
            <BarChart
              bars={points.map((point) => ({
                key: point.t,
                value: point.response_ms ?? 0,
                title: bucketTitle(point, period),
                kind: point.failures === 0 ? undefined : point.failures === point.checks ? 'failed' : 'partial',
                data: { checks: point.checks, failures: point.failures },
              }))}
              label={`Mean response times per ${BUCKET_WORDS[period]} in the ${label}: ${plural(allChecks, 'check')}, ${failedChecks} failed`}
              listLabel="Response times"
              labels={[axisLabel(points[0], period), axisLabel(points[Math.floor(points.length / 2)], period), 'now']}
              maxLabel={msText(max)}
            />
            <FailureStrip points={points} period={period} />
            <figcaption class="chart-legend small muted">
              <span class="legend-item">
                <span class="key ok" aria-hidden="true" /> all passed
              </span>{' '}
              <span class="legend-item">
                <span class="key partial" aria-hidden="true" /> some failed
              </span>{' '}
              <span class="legend-item">
                <span class="key failed" aria-hidden="true" /> all failed
              </span>{' '}
              <span class="legend-item">
                <span class="key no-checks" aria-hidden="true" /> no checks
              </span>
            </figcaption>
            <p class="muted small">
              One bar per {BUCKET_WORDS[period]}, as high as its mean response time; the strip under the bars fills red as far as
              its checks failed.
            </p>
          </figure>
        )}
      </section>
      <FailedChecks projectId={projectId} monitorId={monitorId} period={period} label={label} />
    </>
  );
}
