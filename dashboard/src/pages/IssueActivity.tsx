import { personName } from '../access';
import { Activity, call, client } from '../api';
import { ErrorMessage, RelTime, useAsync } from '../components';
import type { People } from '../people';
import { exactTime, plural } from '../util';

const ACTIVITY_WORDS: Record<string, string> = {
  first_seen: 'First seen',
  resolved: 'Resolved',
  reopened: 'Reopened',
  muted: 'Muted',
  unmuted: 'Unmuted',
  regressed: 'Regressed',
  merged: 'Merged',
  assigned: 'Assigned',
  unassigned: 'Unassigned',
  commented: 'Commented',
  monitor_failed: 'Monitor failed',
  monitor_recovered: 'Resolved: the monitor recovered',
};

/**
 * Whom an `assigned` entry names: its data holds the assignee's type, id and a label (an e-mail or
 * `#slug`); the name comes from the members and teams when they are known.
 */
function assignedTo(value: unknown, people: People | undefined): string | null {
  if (!value || typeof value !== 'object') return null;
  const { type, id, label, name, email } = value as Record<string, unknown>;
  if (type === 'user') {
    const member = people?.members.find((candidate) => candidate.id === id);
    if (member) return personName(member);
  }
  if (type === 'team') {
    const team = people?.teams.find((candidate) => candidate.id === id);
    if (team) return `${team.name} (team)`;
  }
  if (typeof name === 'string' && name) return type === 'team' ? `${name} (team)` : name;
  if (typeof email === 'string' && email) return email;
  return typeof label === 'string' && label ? label : null;
}

function activityText(entry: Activity, people: People | undefined): string {
  const data = entry.data ?? {};
  const word = ACTIVITY_WORDS[entry.kind] ?? entry.kind.replace(/_/g, ' ');
  const details: string[] = [];
  if (typeof data.resolved_in === 'string')
    details.push(
      data.resolved_in === 'next_release' ? 'in the next release' : `in release ${data.resolved_in}`,
    );
  if (typeof data.mute_until === 'string') details.push(`until ${exactTime(data.mute_until)}`);
  if (typeof data.mute_until_count === 'number')
    details.push(`until ${plural(data.mute_until_count, 'more event')}`);
  if (typeof data.mute_until_users === 'number')
    details.push(`until ${plural(data.mute_until_users, 'more user')}`);
  if (Array.isArray(data.releases) && data.releases.length)
    details.push(`by an event of ${data.releases.join(', ')}`);
  if (Array.isArray(data.merged))
    details.push(
      `with ${plural(data.merged.length, 'issue')} (${data.merged.map((id) => `#${id}`).join(', ')})`,
    );
  if (typeof data.into === 'number') details.push(`into #${data.into}`);
  if (entry.kind === 'monitor_failed' && typeof data.detail === 'string') details.push(`(${data.detail})`);
  if (data.by === 'snooze') details.push('when its snooze ended');
  const assignee = entry.kind === 'assigned' ? assignedTo(data.assignee, people) : null;
  if (assignee) details.push(`to ${assignee}`);
  return [word, ...details].join(' ');
}

/** What happened to the issue and who did it, oldest first. */
export function ActivityLog({
  issueId,
  reloadKey,
  people,
}: {
  issueId: number;
  reloadKey: number;
  people?: People;
}) {
  const activity = useAsync(
    () => call(client.GET('/api/issues/{id}/activity', { params: { path: { id: issueId }, query: { limit: 100 } } })),
    [issueId, reloadKey],
  );
  const entries = activity.data?.data ?? [];
  return (
    <section class="card" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <ErrorMessage error={activity.error} onRetry={activity.reload} />
      {activity.data && entries.length === 0 && <p class="muted">No state changes yet.</p>}
      <ol class="activity-list">
        {entries.map((entry) => {
          const data = entry.data ?? {};
          const excerpt =
            entry.kind === 'commented' && typeof data.excerpt === 'string' ? data.excerpt : null;
          // A deleted comment's words leave the log with it.
          const gone = entry.kind === 'commented' && data.deleted === true;
          return (
            <li key={entry.id}>
              <span class="activity-what">{activityText(entry, people)}</span>
              {entry.actor && (
                <span class="activity-who">
                  {' '}
                  by <strong>{personName(entry.actor)}</strong>
                </span>
              )}
              {excerpt && (
                <span class="activity-excerpt">
                  : “{excerpt}”{data.edited === true ? ' (edited)' : ''}
                </span>
              )}
              {gone && <span class="activity-excerpt"> (comment deleted)</span>}{' '}
              <RelTime value={entry.created_at} />
            </li>
          );
        })}
      </ol>
      {activity.data?.next_cursor && <p class="muted small">The first 100 changes are shown.</p>}
    </section>
  );
}

