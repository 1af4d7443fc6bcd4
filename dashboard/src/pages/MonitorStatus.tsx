
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

/**
 * A monitor's issue by its short id: the open one, or once it recovered, its last incident (the
 * same issue, resolved), so that the incident stays one click away.
 */
export function MonitorIssueLink({
  issue,
  className,
}: {
  issue: { id: number; short_id: string; state: string } | null;
  className?: string;
}) {
  if (issue === null) return <span class={className ? `${className} muted` : 'muted'}>none yet</span>;
  const label =
    issue.state === 'open'
      ? `Open issue ${issue.short_id}`
      : issue.state === 'resolved'
        ? `Last incident ${issue.short_id} (resolved)`
        : `Issue ${issue.short_id} (${issue.state})`;
  return (
    <a class={className} href={`/issues/${issue.id}`}>
      {label}
    </a>
  );
}
