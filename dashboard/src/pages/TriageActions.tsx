import type { Issue, IssueChange, IssueState } from '../api';
import { Menu, MenuItem } from '../components';
import { exactTime, plural } from '../util';

const HOUR_MS = 3_600_000;

/** A choice of the Resolve, Mute and Reopen controls: a label, and the change it asks for. */
export interface TriageChoice {
  label: string;
  /** Built when chosen: "mute for an hour" counts from the click. */
  change: () => IssueChange;
}

const RESOLVE: TriageChoice[] = [
  { label: 'Resolve', change: () => ({ state: 'resolved' }) },
  { label: 'Resolve in next release', change: () => ({ state: 'resolved', resolved_in: 'next_release' }) },
];

const muteFor = (hours: number, label: string): TriageChoice => ({
  label,
  change: () => ({ state: 'muted', mute_until: new Date(Date.now() + hours * HOUR_MS).toISOString() }),
});

const MUTE: TriageChoice[] = [
  { label: 'Mute forever', change: () => ({ state: 'muted' }) },
  muteFor(1, 'For 1 hour'),
  muteFor(24, 'For 24 hours'),
  muteFor(24 * 7, 'For 1 week'),
  ...[10, 100, 1000].map((count) => ({
    label: `Until ${count.toLocaleString()} more events`,
    change: (): IssueChange => ({ state: 'muted', mute_until_count: count }),
  })),
  ...[10, 100].map((users) => ({
    label: `Until ${users} more users`,
    change: (): IssueChange => ({ state: 'muted', mute_until_users: users }),
  })),
];

const REOPEN: TriageChoice = { label: 'Reopen', change: () => ({ state: 'open' }) };

/**
 * Resolve (plainly or in the next release), Mute (for a while, until more events or users, or
 * forever) and Reopen, each offered only when it changes one of `states`.
 */
export function TriageActions({
  states,
  busy,
  onChoose,
  subject,
}: {
  /** The states of the issues the actions apply to. */
  states: IssueState[];
  busy: string | null;
  onChoose: (choice: TriageChoice) => void;
  /** Names what is acted on in the buttons' accessible names (e.g. a short id), when several rows have buttons. */
  subject?: string;
}) {
  const some = (test: (state: IssueState) => boolean) => states.some(test);
  const item = (choice: TriageChoice): MenuItem => ({ label: choice.label, onSelect: () => onChoose(choice) });
  const named = (label: string) => (subject ? `${label} ${subject}` : undefined);
  return (
    <div class="triage-actions" role="group" aria-label={subject ? `Triage ${subject}` : 'Triage'}>
      {some((state) => state !== 'resolved') && (
        <span class="split-button">
          <button
            type="button"
            class="btn btn-small btn-primary"
            disabled={busy !== null}
            aria-label={named('Resolve')}
            onClick={() => onChoose(RESOLVE[0])}
          >
            {busy === RESOLVE[0].label ? 'Resolving…' : 'Resolve'}
          </button>
          <Menu label={<span class="sr-only">More ways to resolve</span>} items={RESOLVE.slice(1).map(item)} disabled={busy !== null} />
        </span>
      )}
      {some((state) => state !== 'muted') && (
        <Menu label={busy && MUTE.some((choice) => choice.label === busy) ? 'Muting…' : 'Mute'} items={MUTE.map(item)} disabled={busy !== null} />
      )}
      {some((state) => state !== 'open') && (
        <button type="button" class="btn btn-small" disabled={busy !== null} aria-label={named('Reopen')} onClick={() => onChoose(REOPEN)}>
          {busy === REOPEN.label ? 'Reopening…' : 'Reopen'}
        </button>
      )}
    </div>
  );
}

/** What holds a resolved or muted issue where it is, in words; null when nothing does. */
export function stateCondition(issue: Issue): string | null {
  if (issue.state === 'resolved' && issue.resolved_in) {
    if (issue.resolved_in !== 'next_release') return `Resolved in release ${issue.resolved_in}`;
    // Named once the project has a release newer than its newest at the time (the single issue's answer says).
    return issue.next_release ? `Resolved in the next release (${issue.next_release})` : 'Resolved in the next release';
  }
  if (issue.state === 'muted') {
    if (issue.mute_until) return `Muted until ${exactTime(issue.mute_until)}`;
    if (issue.mute_until_count) return `Muted until ${plural(issue.mute_until_count, 'more event')}`;
    if (issue.mute_until_users) return `Muted until ${plural(issue.mute_until_users, 'more user')}`;
    return 'Muted until reopened';
  }
  return null;
}
