import { useEffect, useRef, useState } from 'preact/hooks';
import { call, client, PublicStatusPage as StatusPageView } from '../api';
import { ErrorMessage, Loading, RelTime, useAsync, useTitle } from '../components';
import { percentText } from '../monitor-words';
import { StatusPill } from './MonitorStatus';
import './monitors.css';

type StatusMonitor = StatusPageView['monitors'][number];
type StatusDay = StatusMonitor['days'][number];

const REFRESH_MS = 60_000;

function dayClass(day: StatusDay): string {
  if (day.uptime_percent === null) return 'day-bar';
  if (day.uptime_percent >= 99.9) return 'day-bar good';
  if (day.uptime_percent >= 95) return 'day-bar minor';
  return 'day-bar bad';
}

function dayName(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric', year: 'numeric' });
}

function dayText(day: StatusDay): string {
  return `${dayName(day.date)}: ${day.uptime_percent === null ? 'no data' : `${percentText(day.uptime_percent)} uptime`}`;
}

/** The mean of the days that have data, or null when none has. */
function overall(days: StatusDay[]): number | null {
  const known = days.map((day) => day.uptime_percent).filter((value): value is number => value !== null);
  return known.length ? known.reduce((sum, value) => sum + value, 0) / known.length : null;
}

/**
 * A project's public status page at /status/{slug}: shown without signing in, outside the app's
 * frame (no navigation, nothing of the account), refreshed every minute.
 */
export function PublicStatusPage({ slug }: { slug: string }) {
  const page = useAsync(() => call(client.GET('/api/status/{slug}', { params: { path: { slug } } })), [slug]);
  useTitle(page.data?.title ?? 'Status');
  useEffect(() => {
    const timer = window.setInterval(page.refresh, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [page.refresh]);
  if (page.status === 404) {
    return (
      <main class="status-page">
        <div class="card">
          <h1>No status page here</h1>
          <p>There is no public status page at this address, or it has been turned off.</p>
        </div>
      </main>
    );
  }
  if (page.error) {
    return (
      <main class="status-page">
        <ErrorMessage error={page.error} onRetry={page.reload} status={page.status} />
      </main>
    );
  }
  if (!page.data) {
    return (
      <main class="status-page">
        <Loading />
      </main>
    );
  }
  const { title, monitors, updated_at } = page.data;
  const down = monitors.filter((monitor) => monitor.status === 'down').length;
  const summary =
    monitors.length === 0
      ? { tone: 'idle', text: 'No monitors are shown on this page yet.' }
      : down === 0
        ? { tone: 'good', text: 'All systems operational' }
        : { tone: 'bad', text: down === monitors.length ? 'All systems are down' : `${down} of ${monitors.length} systems are down` };
  return (
    <main class="status-page" id="main">
      <h1>{title}</h1>
      <div class={`status-summary tone-${summary.tone}`} role="status">
        <span aria-hidden="true">{summary.tone === 'good' ? '✓' : summary.tone === 'bad' ? '✕' : '○'}</span>
        {summary.text}
      </div>
      {monitors.map((monitor, index) => (
        <StatusMonitorCard key={`${monitor.kind}-${index}`} monitor={monitor} />
      ))}
      {monitors.length > 0 && (
        <p class="day-key" aria-hidden="true">
          <span>
            <span class="day-bar good" /> 99.9 % or more
          </span>
          <span>
            <span class="day-bar minor" /> 95 to 99.9 %
          </span>
          <span>
            <span class="day-bar bad" /> under 95 %
          </span>
          <span>
            <span class="day-bar" /> no data
          </span>
        </p>
      )}
      <p class="status-footer">
        Updated <RelTime value={updated_at} /> · refreshed every minute
      </p>
    </main>
  );
}

/** Keys that move along the day bars, as in any toolbar: one tab stop, arrows within. */
function nextIndex(key: string, index: number, count: number): number | null {
  if (key === 'ArrowLeft' || key === 'ArrowDown') return Math.max(index - 1, 0);
  if (key === 'ArrowRight' || key === 'ArrowUp') return Math.min(index + 1, count - 1);
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}

function StatusMonitorCard({ monitor }: { monitor: StatusMonitor }) {
  const [chosen, setChosen] = useState<StatusDay | null>(null);
  // The one bar Tab reaches (today until another is chosen); arrows move from it.
  const [focusIndex, setFocusIndex] = useState(monitor.days.length - 1);
  const bars = useRef<HTMLDivElement>(null);
  const mean = overall(monitor.days);
  const troubled = monitor.days.filter((day) => day.uptime_percent !== null && day.uptime_percent < 100);
  const choose = (index: number) => {
    setFocusIndex(index);
    setChosen(monitor.days[index] ?? null);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const index = nextIndex(event.key, focusIndex, monitor.days.length);
    if (index === null) return;
    event.preventDefault();
    choose(index);
    bars.current?.querySelectorAll<HTMLButtonElement>('button.day-bar')[index]?.focus();
  };
  return (
    <section class="card status-monitor" aria-label={monitor.name}>
      <div class="status-monitor-head">
        <h2>{monitor.name}</h2>
        <StatusPill status={monitor.status} small />
      </div>
      <div
        ref={bars}
        class="day-bars"
        role="group"
        aria-label={`Last ${monitor.days.length} days: ${percentText(mean)} uptime, ${troubled.length} days with downtime`}
        onKeyDown={onKeyDown}
      >
        {monitor.days.map((day, index) => (
          <button
            type="button"
            key={day.date}
            class={dayClass(day)}
            title={dayText(day)}
            aria-label={dayText(day)}
            aria-pressed={chosen?.date === day.date}
            tabIndex={index === focusIndex ? 0 : -1}
            data-date={day.date}
            onClick={() => choose(index)}
          />
        ))}
      </div>
      <div class="day-legend">
        <span>{monitor.days.length} days ago</span>
        <span aria-live="polite">{chosen ? dayText(chosen) : `${percentText(mean)} uptime`}</span>
        <span>Today</span>
      </div>
      {troubled.length > 0 && (
        <ul class="sr-only" aria-label="Days with downtime">
          {troubled.map((day) => (
            <li key={day.date}>{dayText(day)}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
