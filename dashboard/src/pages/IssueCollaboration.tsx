import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { can, personName, useMe } from '../access';
import { Activity, Assignee, call, client, Comment, errorMessage, Issue, Member, Team } from '../api';
import { Async, ErrorMessage, Loading, RelTime, useAsync } from '../components';
import { scrubHtml } from '../markup';
import { exactTime, plural } from '../util';

/** How an assignee reads where people and teams are listed together: a team says it is one. */
export function assigneeName(assignee: Assignee): string {
  return assignee.type === 'team' ? `${assignee.name} (team)` : personName(assignee);
}

function assigneeValue(assignee: Assignee | null | undefined): string {
  return assignee ? `${assignee.type}:${assignee.id}` : '';
}

/** The initials of a name, for the round marker before it. */
function initials(name: string): string {
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

export interface People {
  members: Member[];
  teams: Team[];
}

/** Members and teams, loaded once per issue page: for the assignee picker and to name people. */
export function usePeople(): Async<People> {
  return useAsync(
    () =>
      Promise.all([
        call(client.GET('/api/members')).then((r) => r.data),
        call(client.GET('/api/teams')).then((r) => r.data),
      ]).then(([members, teams]) => ({ members, teams })),
    [],
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
  people: Async<People>;
  onAssigned: (issue: Issue) => void;
}) {
  const me = useMe();
  const triage = can(me, 'project:triage');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const current = issue.assignee ?? null;

  const assign = async (value: string | null) => {
    setBusy(true);
    setError(null);
    try {
      onAssigned(await call(client.PATCH('/api/issues/{id}', { params: { path: { id: issue.id } }, body: { assignee: value } })));
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

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

/** A textarea for Markdown; Ctrl+Enter (⌘+Enter) sends. */
function MarkdownField({
  id,
  label,
  value,
  onInput,
  onSubmit,
  autoFocus,
}: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  onSubmit: () => void;
  autoFocus?: boolean;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    if (!autoFocus || !area.current) return;
    area.current.focus();
    area.current.setSelectionRange(area.current.value.length, area.current.value.length);
  }, []);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        ref={area}
        rows={4}
        maxLength={20000}
        aria-describedby={`${id}-hint`}
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            onSubmit();
          }
        }}
      />
      <small class="hint" id={`${id}-hint`}>
        Markdown: **bold**, _italic_, `code`, ``` blocks, lists, [links](https://example.com). Ctrl+Enter
        sends.
      </small>
    </div>
  );
}

function CommentItem({
  comment,
  issueId,
  onChanged,
  onDeleted,
}: {
  comment: Comment;
  issueId: number;
  onChanged: (comment: Comment) => void;
  onDeleted: (comment: Comment) => void;
}) {
  const me = useMe();
  const own = comment.author !== null && comment.author.id === me.user_id;
  const admin = me.role === 'owner' || me.role === 'admin';
  const mayEdit = own && can(me, 'project:triage');
  const mayDelete = (own && can(me, 'project:triage')) || (admin && !me.read_only);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(comment.body);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const author = comment.author ? personName(comment.author) : comment.author_label || 'A former member';
  const edited = Date.parse(comment.updated_at) > Date.parse(comment.created_at);
  const headingId = `comment-${comment.id}-by`;

  const save = async () => {
    if (!draft.trim()) return;
    setBusy(true);
    setError(null);
    try {
      onChanged(
        await call(
          client.PATCH('/api/issues/{id}/comments/{commentId}', {
            params: { path: { id: issueId, commentId: comment.id } },
            body: { body: draft },
          }),
        ),
      );
      setEditing(false);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await call(
        client.DELETE('/api/issues/{id}/comments/{commentId}', { params: { path: { id: issueId, commentId: comment.id } } }),
      );
      onDeleted(comment);
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  };

  return (
    <li class="comment" aria-labelledby={headingId}>
      <div class="comment-head">
        <span class="avatar" aria-hidden="true">
          {initials(author)}
        </span>
        <span id={headingId} class="comment-author">
          {author}
        </span>
        <span class="muted small">
          <RelTime value={comment.created_at} />
          {edited && <span title={`Edited ${exactTime(comment.updated_at)}`}>{' · edited'}</span>}
        </span>
        {!editing && (mayEdit || mayDelete) && (
          <span class="comment-actions">
            {mayEdit && (
              <button
                type="button"
                class="btn btn-tiny btn-link"
                aria-label={`Edit comment of ${author}`}
                onClick={() => {
                  setDraft(comment.body);
                  setEditing(true);
                  setConfirming(false);
                }}
              >
                Edit
              </button>
            )}
            {mayDelete && (
              <button
                type="button"
                class="btn btn-tiny btn-link text-danger"
                aria-label={`Delete comment of ${author}`}
                onClick={() => setConfirming(true)}
              >
                Delete
              </button>
            )}
          </span>
        )}
      </div>
      {confirming && (
        <div class="row-confirm comment-confirm" role="alertdialog" aria-label="Confirm deleting the comment">
          <span class="small">Delete this comment?</span>
          <button
            type="button"
            class="btn btn-tiny btn-danger-solid"
            disabled={busy}
            onClick={() => void remove()}
          >
            {busy ? 'Deleting…' : 'Delete comment'}
          </button>
          <button type="button" class="btn btn-tiny" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      <ErrorMessage error={error} />
      {editing ? (
        <form
          class="comment-edit"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <MarkdownField
            id={`comment-${comment.id}-edit`}
            label="Edit the comment"
            value={draft}
            onInput={setDraft}
            onSubmit={() => void save()}
            autoFocus
          />
          <div class="form-actions">
            <button type="submit" class="btn btn-small btn-primary" disabled={busy || !draft.trim()}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button type="button" class="btn btn-small" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div class="comment-body markdown" dangerouslySetInnerHTML={{ __html: scrubHtml(comment.html) }} />
      )}
    </li>
  );
}

/** What people said about the issue, oldest first, and a box to add to it. */
export function Comments({ issueId, onCommented }: { issueId: number; onCommented: () => void }) {
  const me = useMe();
  const [comments, setComments] = useState<Comment[]>([]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = async (cursor: string | null) => {
    setLoading(true);
    setLoadError(null);
    try {
      const page = await call(
        client.GET('/api/issues/{id}/comments', { params: { path: { id: issueId }, query: { cursor: cursor ?? undefined } } }),
      );
      setComments((previous) => (cursor ? [...previous, ...page.data] : page.data));
      setNextCursor(page.next_cursor);
    } catch (failure) {
      setLoadError(errorMessage(failure));
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    setComments([]);
    void load(null);
  }, [issueId]);

  const send = async () => {
    if (!draft.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      const comment = await call(client.POST('/api/issues/{id}/comments', { params: { path: { id: issueId } }, body: { body: draft } }));
      // Older pages may still be unread: the new one shows once they are.
      if (!nextCursor) setComments((previous) => [...previous, comment]);
      setDraft('');
      onCommented();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card comments" aria-labelledby="comments-title">
      <h2 id="comments-title">
        Comments
        {comments.length > 0 && (
          <span class="muted small">
            {' '}
            ({comments.length}
            {nextCursor ? '+' : ''})
          </span>
        )}
      </h2>
      <ErrorMessage error={loadError} onRetry={() => void load(null)} />
      {loading && comments.length === 0 && <Loading label="Loading comments…" />}
      {!loading && !loadError && comments.length === 0 && <p class="muted">No comments yet.</p>}
      <ol class="comment-list">
        {comments.map((comment) => (
          <CommentItem
            key={comment.id}
            comment={comment}
            issueId={issueId}
            onChanged={(updated) => setComments((all) => all.map((c) => (c.id === updated.id ? updated : c)))}
            onDeleted={(gone) => setComments((all) => all.filter((c) => c.id !== gone.id))}
          />
        ))}
      </ol>
      {nextCursor && (
        <button type="button" class="btn btn-small" disabled={loading} onClick={() => void load(nextCursor)}>
          {loading ? 'Loading…' : 'Show newer comments'}
        </button>
      )}
      {can(me, 'project:triage') ? (
        <form
          class="comment-form"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <MarkdownField
            id={`issue-${issueId}-comment`}
            label="Add a comment"
            value={draft}
            onInput={setDraft}
            onSubmit={() => void send()}
          />
          <ErrorMessage error={error} />
          <button type="submit" class="btn btn-primary btn-small" disabled={busy || !draft.trim()}>
            {busy ? 'Sending…' : 'Comment'}
          </button>
        </form>
      ) : (
        <p class="muted small">A {me.role} can read comments but not write them.</p>
      )}
    </section>
  );
}

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
