import { plural } from './util';

/** Figures of monitors in words: percentages, response times, durations, intervals, addresses. */

export function percentText(value: number | null | undefined): string {
  if (typeof value !== 'number') return '—';
  if (value === 100) return '100 %';
  return `${value
    .toFixed(value >= 99 ? 3 : 2)
    .replace(/0+$/, '')
    .replace(/\.$/, '')} %`;
}

export function msText(value: number | null | undefined): string {
  return typeof value === 'number' ? `${Math.round(value).toLocaleString()} ms` : '—';
}

export function hostOf(monitor: { url: string }): string {
  try {
    return new URL(monitor.url).host;
  } catch {
    return monitor.url;
  }
}

/** Durations as people say them: "850 ms", "12.4 s", "3 min 5 s". */
export function durationText(ms: number | null | undefined): string {
  if (typeof ms !== 'number') return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1).replace(/\.?0+$/, '')} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}

/** An interval in the largest whole unit: "60 seconds" is "1 minute", 3600 "1 hour". */
export function intervalText(seconds: number): string {
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    if (seconds >= size && seconds % size === 0) return plural(seconds / size, unit);
  }
  return plural(seconds, 'second');
}

/** The DSN check-in URL (`/api/{project_id}/cron/{slug}/{public_key}/`) of a project's DSN. */
export function checkInUrl(dsn: string, slug: string): string {
  try {
    const url = new URL(dsn);
    // A DSN's path is the project id, after the path the server is mounted under, if any.
    const segments = url.pathname.split('/').filter(Boolean);
    const projectId = segments.pop() ?? '';
    const prefix = segments.map((segment) => `/${segment}`).join('');
    return `${url.protocol}//${url.host}${prefix}/api/${projectId}/cron/${encodeURIComponent(slug)}/${url.username}/`;
  } catch {
    return `<your server>/api/<project id>/cron/${slug}/<public key>/`;
  }
}
