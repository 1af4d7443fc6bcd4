import { plural } from '../util';
import type { UptimeMonitor } from '../api';

/**
 * A monitor's or a check-in's state as a pill: a sign and a word as well as a colour, so that it reads
 * without colour too. Cron states (ok, error, missed, timeout, in_progress, pending) and uptime states
 * (up, down, pending) share the look.
 */
const STATES: Record<string, { sign: string; word: string; tone: 'good' | 'bad' | 'warn' | 'busy' | 'idle' }> = {
  ok: { sign: '✓', word: 'OK', tone: 'good' },
  up: { sign: '✓', word: 'Up', tone: 'good' },
  error: { sign: '✕', word: 'Error', tone: 'bad' },
  down: { sign: '✕', word: 'Down', tone: 'bad' },
  missed: { sign: '!', word: 'Missed', tone: 'warn' },
  timeout: { sign: '⊘', word: 'Timed out', tone: 'bad' },
  in_progress: { sign: '…', word: 'In progress', tone: 'busy' },
  pending: { sign: '○', word: 'Waiting', tone: 'idle' },
};

export function statusWord(status: string): string {
  return STATES[status]?.word ?? status;
}

export function StatusPill({ status, label, small }: { status: string; label?: string; small?: boolean }) {
  const state = STATES[status] ?? { sign: '?', word: status, tone: 'idle' as const };
  return (
    <span class={`status-pill tone-${state.tone}${small ? ' small' : ''}`} data-status={status}>
      <span class="status-sign" aria-hidden="true">
        {state.sign}
      </span>
      {label ? `${label}: ${state.word}` : state.word}
    </span>
  );
}

/** The "Muted" mark beside a monitor's state: it still runs, but opens no issue. */
export function MutedMark({ muted }: { muted: boolean }) {
  if (!muted) return null;
  return (
    <span class="badge badge-muted" title="Checks go on; no issue is opened and no alert is sent">
      Muted
    </span>
  );
}

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

export function hostOf(monitor: Pick<UptimeMonitor, 'url'>): string {
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
