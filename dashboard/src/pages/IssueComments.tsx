import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { can, personName, useMe } from '../access';
import { useSubmit } from '../actions';
import { call, client, Comment } from '../api';
import { ErrorMessage, Loading, RelTime } from '../components';
import { useCursorPages } from '../lists';
import { scrubHtml } from '../markup';
import { exactTime } from '../util';
import { initials } from './IssueAssignee';

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
  const { busy, error, run } = useSubmit();
  const author = comment.author ? personName(comment.author) : comment.author_label || 'A former member';
  const edited = Date.parse(comment.updated_at) > Date.parse(comment.created_at);
  const headingId = `comment-${comment.id}-by`;

  const save = async () => {
    if (!draft.trim()) return;
    await run(async () => {
      onChanged(
        await call(
          client.PATCH('/api/issues/{id}/comments/{commentId}', {
            params: { path: { id: issueId, commentId: comment.id } },
            body: { body: draft },
          }),
        ),
      );
      setEditing(false);
    });
  };

  const remove = () =>
    run(async () => {
      await call(
        client.DELETE('/api/issues/{id}/comments/{commentId}', { params: { path: { id: issueId, commentId: comment.id } } }),
      );
      onDeleted(comment);
    });

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
  const pages = useCursorPages((cursor) =>
    call(client.GET('/api/issues/{id}/comments', { params: { path: { id: issueId }, query: { cursor } } })),
    true,
  );
  const { items: comments, setItems: setComments, next: nextCursor, loading, error: loadError, load } = pages;
  const [draft, setDraft] = useState('');
  const { busy, error, run } = useSubmit();

  useEffect(() => {
    pages.clear();
    void load(null);
  }, [issueId]);

  const send = async () => {
    if (!draft.trim() || busy) return;
    await run(async () => {
      const comment = await call(client.POST('/api/issues/{id}/comments', { params: { path: { id: issueId } }, body: { body: draft } }));
      // Older pages may still be unread: the new one shows once they are.
      if (!nextCursor) setComments((previous) => [...previous, comment]);
      setDraft('');
      onCommented();
    });
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

