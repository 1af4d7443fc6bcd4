import { can, personName, useMe } from '../access';
import { useSubmit } from '../actions';
import { Assignee, call, client, Issue } from '../api';
import { ErrorMessage } from '../components';
import type { People } from '../people';

/** How an assignee reads where people and teams are listed together: a team says it is one. */
export function assigneeName(assignee: Assignee): string {
  return assignee.type === 'team' ? `${assignee.name} (team)` : personName(assignee);
}

function assigneeValue(assignee: Assignee | null | undefined): string {
  return assignee ? `${assignee.type}:${assignee.id}` : '';
}

/** The initials of a name, for the round marker before it. */
export function initials(name: string): string {
  const words = name
    .replace(/[@(].*$/, '')
    .trim()
    .split(/[\s._-]+/)
    .filter(Boolean);
  return (words.length > 1 ? words[0][0] + words[1][0] : (words[0] ?? '?').slice(0, 2)).toUpperCase();
}

/** The assignee in an issue list row. */
export function AssigneeTag({ assignee }: { assignee: Assignee }) {
  const name = assignee.type === 'team' ? assignee.name : personName(assignee);
  return (
    <span
      class={assignee.type === 'team' ? 'assignee-tag team' : 'assignee-tag'}
      title={
        assignee.type === 'team' ? `Assigned to the team ${name}` : `Assigned to ${name} (${assignee.email})`
      }
    >
      <span class="avatar" aria-hidden="true">
        {assignee.type === 'team' ? '#' : initials(name)}
      </span>
      <span class="sr-only">Assigned to {assignee.type === 'team' ? 'the team ' : ''}</span>
      {name}
    </span>
  );
}

/**
 * Who is on the issue. Those who can triage choose among the members and teams that see its project
 * (owners and admins see every project; others through their teams).
 */
export function AssigneeControl({
  issue,
  people,
  onAssigned,
}: {
  issue: Issue;
  people: { data: People | undefined; error: string | null };
  onAssigned: (issue: Issue) => void;
}) {
  const me = useMe();
  const triage = can(me, 'project:triage');
  const { busy, error, run } = useSubmit();
  const current = issue.assignee ?? null;

  const assign = (value: string | null) =>
    run(async () =>
      onAssigned(await call(client.PATCH('/api/issues/{id}', { params: { path: { id: issue.id } }, body: { assignee: value } }))),
    );

  if (!triage) {
    return (
      <div class="assignee-control">
        <span class="assignee-label">Assignee</span>
        {current ? <AssigneeTag assignee={current} /> : <span class="muted">Unassigned</span>}
      </div>
    );
  }

  const teams = (people.data?.teams ?? []).filter((team) => team.project_ids.includes(issue.project_id));
  const teamIds = new Set(teams.map((team) => team.id));
  const members = (people.data?.members ?? [])
    .filter(
      (member) =>
        member.is_active &&
        (member.role === 'owner' || member.role === 'admin' || member.team_ids.some((id) => teamIds.has(id))),
    )
    .sort((a, b) =>
      a.id === me.user_id ? -1 : b.id === me.user_id ? 1 : personName(a).localeCompare(personName(b)),
    );
  const value = assigneeValue(current);
  const listed =
    value === '' ||
    members.some((m) => `user:${m.id}` === value) ||
    teams.some((t) => `team:${t.id}` === value);
  const mine = current?.type === 'user' && current.id === me.user_id;

  return (
    <div class="assignee-control">
      <label class="assignee-picker">
        <span class="assignee-label">Assignee</span>
        <select
          name="assignee"
          value={value}
          disabled={busy}
          onChange={(event) => void assign(event.currentTarget.value || null)}
        >
          <option value="">Unassigned</option>
          {!listed && current && <option value={value}>{assigneeName(current)}</option>}
          {members.length > 0 && (
            <optgroup label="Members">
              {members.map((member) => (
                <option key={member.id} value={`user:${member.id}`}>
                  {personName(member)}
                  {member.id === me.user_id ? ' (you)' : ''}
                </option>
              ))}
            </optgroup>
          )}
          {teams.length > 0 && (
            <optgroup label="Teams">
              {teams.map((team) => (
                <option key={team.id} value={`team:${team.id}`}>
                  {team.name} (team)
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </label>
      <div class="assignee-buttons">
        {!mine && me.user_id !== null && (
          <button
            type="button"
            class="btn btn-small"
            disabled={busy}
            onClick={() => void assign(`user:${me.user_id}`)}
          >
            Assign to me
          </button>
        )}
        {current && (
          <button
            type="button"
            class="btn btn-small btn-link"
            disabled={busy}
            onClick={() => void assign(null)}
          >
            Unassign
          </button>
        )}
      </div>
      {busy && (
        <span class="sr-only" role="status">
          Saving the assignee…
        </span>
      )}
      <ErrorMessage error={error ?? (people.error ? `Members could not be loaded: ${people.error}` : null)} />
    </div>
  );
}

