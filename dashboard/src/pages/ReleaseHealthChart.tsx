import type { HealthBucket, ReleaseHealth } from '../release-health-types';
import { Empty } from '../components';
import { count, percent } from './ReleaseFigures';

const HOUR_MS = 3_600_000;

const LEGEND = [
  ['healthy', 'healthy'],
  ['errored', 'errored'],
  ['abnormal', 'abnormal'],
  ['crashed', 'crashed'],
  ['rate', 'crash-free sessions'],
] as const;

const numberOf = (value: number | null | undefined): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Hours in local time, days as UTC days (as the server buckets them). */
function bucketName(time: string, interval: ReleaseHealth['interval']): string {
  const date = new Date(time);
  return interval === 'hour'
    ? date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' });
}

function bucketTitle(bucket: HealthBucket, interval: ReleaseHealth['interval']): string {
  const when =
    interval === 'hour'
      ? `${bucketName(bucket.time, interval)}–${bucketName(new Date(new Date(bucket.time).getTime() + HOUR_MS).toISOString(), interval)}`
      : `${bucketName(bucket.time, interval)} (UTC day)`;
  const abnormal = numberOf(bucket.abnormal_sessions) > 0 ? `, ${count(bucket.abnormal_sessions)} abnormal` : '';
  return (
    `${when}: ${count(bucket.sessions)} sessions, ${count(bucket.crashed_sessions)} crashed, ` +
    `${count(bucket.errored_sessions)} errored${abnormal}; crash-free ${percent(bucket.crash_free_sessions)}`
  );
}

/**
 * A release's sessions over the period, one bar per bucket (its crashed and errored part coloured),
 * and its crash-free rate as a line above them, from GET …/releases/{version}/health.
 */
export function ReleaseHealthChart({ health }: { health: ReleaseHealth | undefined }) {
  const series = health?.series ?? [];
  const total = series.reduce((sum, bucket) => sum + numberOf(bucket.sessions), 0);
  if (!health || series.length === 0 || total === 0) {
    return (
      <Empty title="No sessions in this period">
        The SDKs send a session per page load (<code>@sentry/browser</code>) or per request (<code>@sentry/node</code>) when{' '}
        <code>release</code> is set; crash-free rates are drawn from them.
      </Empty>
    );
  }
  const interval = health.interval;
  const max = Math.max(1, ...series.map((bucket) => numberOf(bucket.sessions)));
  const rates = series.map((bucket) => bucket.crash_free_sessions).filter((rate): rate is number => typeof rate === 'number');
  // The rate's scale starts at a round figure under its lowest value, so that a dip shows.
  const floor = rates.length ? Math.max(0, Math.min(90, Math.floor(Math.min(...rates) / 10) * 10)) : 90;
  const width = 1000;
  const height = 60;
  const step = width / series.length;
  const y = (rate: number) => (height - ((rate - floor) / (100 - floor)) * (height - 4) - 2).toFixed(1);
  const points = series.flatMap((bucket, index) =>
    typeof bucket.crash_free_sessions === 'number' ? [`${(index * step + step / 2).toFixed(1)},${y(bucket.crash_free_sessions)}`] : [],
  );
  // A rate of one bucket alone (a single day with sessions) is a line of one point, which draws
  // nothing: it is drawn across its bucket instead.
  const lone = points.length === 1 ? series.findIndex((bucket) => typeof bucket.crash_free_sessions === 'number') : -1;
  const line =
    lone >= 0
      ? `${(lone * step).toFixed(1)},${y(series[lone].crash_free_sessions as number)} ${((lone + 1) * step).toFixed(1)},${y(series[lone].crash_free_sessions as number)}`
      : points.join(' ');
  const abnormalShown = series.some((bucket) => numberOf(bucket.abnormal_sessions) > 0);
  const per = interval === 'hour' ? 'per hour' : 'per UTC day';
  const middle = series[Math.floor(series.length / 2)];
  return (
    <figure class="chart health-chart">
      <figcaption class="health-legend small">
        {LEGEND.filter(([kind]) => kind !== 'abnormal' || abnormalShown).map(([kind, label]) => (
          <span key={kind} class="legend-item">
            <span class={`key ${kind}`} aria-hidden="true" /> {label}
          </span>
        ))}
        <span class="muted">· {per}</span>
      </figcaption>
      <div class="health-rate" aria-hidden="true">
        <span class="health-rate-scale">
          <span>100 %</span>
          <span>{floor} %</span>
        </span>
        <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" class="health-rate-line">
          <polyline points={line} fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke" />
        </svg>
      </div>
      <div
        class={series.length > 40 ? 'chart-bars dense' : 'chart-bars'}
        role="img"
        aria-label={`${total.toLocaleString()} sessions, ${percent(health.totals?.crash_free_sessions)} crash-free, ${per}`}
      >
        {series.map((bucket) => {
          const sessions = numberOf(bucket.sessions);
          const crashed = numberOf(bucket.crashed_sessions);
          // Sentry's status groups: errored excludes the crashed and abnormal sessions already.
          const errored = numberOf(bucket.errored_sessions);
          const abnormal = numberOf(bucket.abnormal_sessions);
          const part = (value: number) => `${((value / max) * 100).toFixed(2)}%`;
          return (
            <div
              key={bucket.time}
              class="chart-col health-col"
              title={bucketTitle(bucket, interval)}
              data-sessions={sessions}
              data-crashed={crashed}
              data-errored={errored}
            >
              <div class="health-bar crashed" style={{ height: part(crashed) }} />
              <div class="health-bar abnormal" style={{ height: part(abnormal) }} />
              <div class="health-bar errored" style={{ height: part(errored) }} />
              <div class="health-bar healthy" style={{ height: part(Math.max(0, sessions - crashed - abnormal - errored)) }} />
            </div>
          );
        })}
        <span class="chart-max" aria-hidden="true">
          max {max.toLocaleString()}
        </span>
      </div>
      <div class="chart-labels" aria-hidden="true">
        <span>{bucketName(series[0].time, interval)}</span>
        {middle && <span>{bucketName(middle.time, interval)}</span>}
        <span>{interval === 'hour' ? 'now' : 'today'}</span>
      </div>
      <ul class="sr-only" aria-label={`Sessions ${per}`}>
        {series.map((bucket) => (
          <li key={bucket.time}>{bucketTitle(bucket, interval)}</li>
        ))}
      </ul>
    </figure>
  );
}
