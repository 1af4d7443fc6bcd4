import { useState } from 'preact/hooks';
import { call, client, Stats, StatsPeriod } from '../api';
import { ErrorMessage, Loading, useAsync } from '../components';
import { BarChart } from '../bar-chart';
import { plural } from '../util';

export const PERIODS: { value: StatsPeriod; label: string }[] = [
  { value: '24h', label: 'last 24 hours' },
  { value: '14d', label: 'last 14 days' },
  { value: '90d', label: 'last 90 days' },
];
export const DEFAULT_PERIOD: StatsPeriod = '14d';

/** The chosen period is kept for the browser tab's session (sessionStorage may be unavailable). */
function storedPeriod(key: string): StatsPeriod {
  try {
    const value = window.sessionStorage.getItem(key);
    if (PERIODS.some((period) => period.value === value)) return value as StatsPeriod;
  } catch {
    // storage blocked: the default it is
  }
  return DEFAULT_PERIOD;
}

function storePeriod(key: string, period: StatsPeriod): void {
  try {
    window.sessionStorage.setItem(key, period);
  } catch {
    // storage blocked: the choice lasts until the page is left
  }
}

export function periodLabel(period: StatsPeriod): string {
  return PERIODS.find((candidate) => candidate.value === period)?.label ?? period;
}

/** The 24h / 14d / 90d switch of a chart or a page. */
export function PeriodSwitch<Period extends string = StatsPeriod>({
  period,
  onChoose,
  label,
  options = PERIODS as unknown as { value: Period; label: string }[],
}: {
  period: Period;
  onChoose: (period: Period) => void;
  label: string;
  /** The periods offered, when not the stats endpoints' own. */
  options?: { value: Period; label: string }[];
}) {
  return (
    <div class="segmented small" role="group" aria-label={label}>
      {options.map((option) => (
        <button
          key={option.value}
          type="button"
          class={period === option.value ? 'seg active' : 'seg'}
          aria-pressed={period === option.value}
          title={`Show the ${option.label}`}
          onClick={() => onChoose(option.value)}
        >
          {option.value}
        </button>
      ))}
    </div>
  );
}

/** Hours in local time (hour buckets line up with local hours in nearly every zone); days are UTC days. */
function bucketName(start: string, interval: Stats['interval'], withDay = false): string {
  const date = new Date(start);
  if (interval === '1h') {
    const time = date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
    return withDay ? `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}` : time;
  }
  return date.toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' });
}

function bucketTitle(start: string, interval: Stats['interval'], count: number): string {
  const events = plural(count, 'event');
  if (interval === '1h') {
    const end = new Date(new Date(start).getTime() + 3_600_000).toISOString();
    return `${bucketName(start, interval, true)}–${bucketName(end, interval)}: ${events}`;
  }
  return `${bucketName(start, interval)} (UTC day): ${events}`;
}

/** Whose events a chart counts: an issue's or a project's. */
export type StatsOf = { issueId: number } | { projectId: number };

function loadStats(of: StatsOf, period: StatsPeriod): Promise<Stats> {
  return 'issueId' in of
    ? call(client.GET('/api/issues/{id}/stats', { params: { path: { id: of.issueId }, query: { period } } }))
    : call(client.GET('/api/projects/{id}/stats', { params: { path: { id: of.projectId }, query: { period } } }));
}

/**
 * Events over time from a stats endpoint (`/api/issues/:id/stats` or `/api/projects/:id/stats`),
 * drawn from the server's buckets with a 24h / 14d / 90d switch. A new `reloadKey` asks again.
 */
export function EventChart({ of, storageKey, reloadKey = 0 }: { of: StatsOf; storageKey: string; reloadKey?: number }) {
  const [period, setPeriod] = useState<StatsPeriod>(() => storedPeriod(storageKey));
  const key = 'issueId' in of ? `issue ${of.issueId}` : `project ${of.projectId}`;
  const stats = useAsync(() => loadStats(of, period), [key, period, reloadKey]);
  const choose = (value: StatsPeriod) => {
    storePeriod(storageKey, value);
    setPeriod(value);
  };

  const data = stats.data;
  const buckets = data?.buckets ?? [];
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  const max = Math.max(1, ...buckets.map((bucket) => bucket.count));
  const shownPeriod = data?.period ?? period;
  const per = data?.interval === '1h' ? 'per hour' : 'per UTC day';
  const summary = `${total.toLocaleString()} ${total === 1 ? 'event' : 'events'} in the ${periodLabel(shownPeriod)}`;
  const middle = buckets[Math.floor(buckets.length / 2)];

  return (
    <figure class="chart">
      <div class="chart-head">
        <figcaption>
          {data ? (
            <>
              <strong>{total.toLocaleString()}</strong> {total === 1 ? 'event' : 'events'} · {periodLabel(shownPeriod)}
              <span class="muted small"> · {per}</span>
            </>
          ) : (
            <span class="muted">Events over time</span>
          )}
        </figcaption>
        <PeriodSwitch period={period} onChoose={choose} label="Chart period" />
      </div>
      <ErrorMessage error={stats.error} onRetry={stats.reload} />
      {!data && stats.loading && <Loading label="Loading chart…" />}
      {data && (
        <div class={stats.loading ? 'chart-body is-loading' : 'chart-body'} aria-busy={stats.loading}>
          <BarChart
            bars={buckets.map((bucket) => ({
              key: bucket.start,
              value: bucket.count,
              title: bucketTitle(bucket.start, data.interval, bucket.count),
              data: { start: bucket.start, count: bucket.count },
            }))}
            label={`${summary}, ${per}`}
            listLabel={`Events ${per}`}
            labels={buckets.length > 0 ? [bucketName(buckets[0].start, data.interval), ...(middle ? [bucketName(middle.start, data.interval)] : []), data.interval === '1h' ? 'now' : 'today'] : []}
            maxLabel={max.toLocaleString()}
          />
        </div>
      )}
    </figure>
  );
}
