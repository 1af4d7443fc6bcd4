import { useEffect, useState } from 'preact/hooks';
import { useCan } from '../access';
import { useSubmit } from '../actions';
import type { components } from '../api-schema';
import { call, client } from '../api';
import { feedbackSourceWords } from '../feedback-words';
import { Badge, Empty, ErrorMessage, Loading, ProjectLoadError, RelTime, useTitle } from '../components';
import { useCursorPages } from '../lists';
import { navigate, useLocation } from '../router';
import { plural } from '../util';
import { ProjectHeader, useProject } from './ProjectHeader';
import './feedback.css';

export type Feedback = components['schemas']['FeedbackView'];
type StatusFilter = 'unresolved' | 'resolved' | 'all';

const STATUS_FILTERS: { value: StatusFilter; label: string }[] = [
  { value: 'unresolved', label: 'Unresolved' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'all', label: 'All' },
];

/** The project's feedback inbox: searchable, by status, each one resolved or reopened in place. */
export function FeedbackPage({ projectId }: { projectId: number }) {
  const project = useProject(projectId);
  const location = useLocation();
  const status = (STATUS_FILTERS.find((filter) => filter.value === location.query.get('status'))?.value ?? 'unresolved') as StatusFilter;
  const query = location.query.get('query') ?? '';
  const [draft, setDraft] = useState(query);
  useTitle(project.data ? `${project.data.name} feedback` : 'Feedback');
  const pages = useCursorPages(
    (cursor) =>
      call(
        client.GET('/api/projects/{id}/feedback', {
          params: {
            path: { id: projectId },
            query: { cursor, query: query || undefined, status: status === 'all' ? undefined : status },
          },
        }),
      ),
    true,
  );
  useEffect(() => {
    pages.clear();
    void pages.load(null);
  }, [projectId, status, query]);
  useEffect(() => setDraft(query), [query]);

  const go = (next: { status?: StatusFilter; query?: string }) => {
    const params = new URLSearchParams();
    const nextStatus = next.status ?? status;
    const nextQuery = next.query ?? query;
    if (nextStatus !== 'unresolved') params.set('status', nextStatus);
    if (nextQuery) params.set('query', nextQuery);
    const search = params.toString();
    navigate(`/projects/${projectId}/feedback${search ? `?${search}` : ''}`);
  };

  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;
  const { items, next, loading, error } = pages;
  const replace = (changed: Feedback) =>
    pages.setItems((previous) =>
      status !== 'all' && changed.status !== status
        ? previous.filter((row) => row.id !== changed.id)
        : previous.map((row) => (row.id === changed.id ? changed : row)),
    );

  return (
    <>
      <ProjectHeader project={project.data} active="feedback" />
      <section class="card" aria-labelledby="feedback-title">
        <h2 id="feedback-title" class="sr-only">
          Feedback
        </h2>
        <div class="toolbar feedback-toolbar">
          <form
            class="search-box feedback-search"
            role="search"
            onSubmit={(event) => {
              event.preventDefault();
              go({ query: draft.trim() });
            }}
          >
            <label for="feedback-query" class="sr-only">
              Search feedback
            </label>
            <input
              id="feedback-query"
              class="search-input"
              type="search"
              placeholder="Search messages, names, e-mails, pages"
              maxLength={200}
              value={draft}
              onInput={(event) => setDraft(event.currentTarget.value)}
            />
            <button type="submit" class="btn">
              Search
            </button>
          </form>
          <div class="segmented small" role="group" aria-label="Status">
            {STATUS_FILTERS.map((filter) => (
              <button
                key={filter.value}
                type="button"
                class={status === filter.value ? 'seg active' : 'seg'}
                aria-pressed={status === filter.value}
                onClick={() => go({ status: filter.value })}
              >
                {filter.label}
              </button>
            ))}
          </div>
        </div>
        <ErrorMessage error={error} onRetry={() => void pages.load(null)} />
        {loading && items.length === 0 && <Loading label="Loading feedback…" />}
        {!loading && !error && items.length === 0 && (
          <Empty title={query ? 'No feedback matches this search.' : status === 'resolved' ? 'No resolved feedback.' : 'No feedback yet.'}>
            {!query && status === 'unresolved' && (
              <p class="muted">
                Feedback arrives from the SDK’s feedback widget, <code>captureFeedback</code> and the crash-report dialog (
                <code>showReportDialog</code>); see the setup page for the DSN.
              </p>
            )}
          </Empty>
        )}
        <ul class="feedback-list">
          {items.map((feedback) => (
            <li key={feedback.id}>
              <FeedbackItem feedback={feedback} onChange={replace} showIssue />
            </li>
          ))}
        </ul>
        {next && (
          <button type="button" class="btn btn-small btn-block" disabled={loading} onClick={() => void pages.load(next)}>
            {loading ? 'Loading…' : 'Load more'}
          </button>
        )}
      </section>
    </>
  );
}

/** One feedback: what the user said, who, where, and the button that resolves or reopens it. */
export function FeedbackItem({ feedback, onChange, showIssue }: { feedback: Feedback; onChange: (feedback: Feedback) => void; showIssue?: boolean }) {
  const can = useCan();
  const { busy, error, run } = useSubmit();
  const resolved = feedback.status === 'resolved';
  const who = [feedback.name, feedback.contact_email].filter(Boolean).join(' · ') || 'Anonymous';
  const toggle = () =>
    run(async () => {
      onChange(
        await call(
          client.PATCH('/api/projects/{id}/feedback/{feedbackId}', {
            params: { path: { id: feedback.project_id, feedbackId: feedback.id } },
            body: { status: resolved ? 'unresolved' : 'resolved' },
          }),
        ),
      );
    });
  return (
    <article class={resolved ? 'feedback-item is-resolved' : 'feedback-item'} aria-label={`Feedback from ${who}`}>
      <div class="feedback-head">
        <span class="feedback-who">
          <strong>{feedback.name || 'Anonymous'}</strong>
          {feedback.contact_email && (
            <a class="feedback-email" href={`mailto:${feedback.contact_email}`}>
              {feedback.contact_email}
            </a>
          )}
        </span>
        <span class="muted small feedback-when">
          <RelTime value={feedback.received_at} />
        </span>
      </div>
      <p class="feedback-message">{feedback.message}</p>
      <div class="feedback-meta muted small">
        {resolved && <Badge kind="resolved">resolved</Badge>}
        <span class="feedback-source">{feedbackSourceWords(feedback.source)}</span>
        {feedback.url && (
          <span class="feedback-url mono" title={feedback.url}>
            {feedback.url}
          </span>
        )}
        {feedback.environment && <span>{feedback.environment}</span>}
        {feedback.release && <span class="mono">{feedback.release}</span>}
        {showIssue && feedback.issue_id !== null && <a href={`/issues/${feedback.issue_id}`}>Open its issue</a>}
        {showIssue && feedback.issue_id === null && feedback.associated_event_id && <span>Its event has not arrived yet</span>}
      </div>
      {can('project:triage') && (
        <div class="feedback-actions">
          <button type="button" class="btn btn-small" disabled={busy} onClick={() => void toggle()}>
            {resolved ? 'Mark unresolved' : 'Mark resolved'}
          </button>
        </div>
      )}
      {error && (
        <p class="text-danger small" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}

/** The feedback on an issue's events, on the issue page; nothing at all while there is none. */
export function IssueFeedback({ issueId }: { issueId: number }) {
  const pages = useCursorPages(
    (cursor) => call(client.GET('/api/issues/{id}/feedback', { params: { path: { id: issueId }, query: { cursor, limit: 20 } } })),
    true,
  );
  useEffect(() => {
    pages.clear();
    void pages.load(null);
  }, [issueId]);
  const { items, next, loading, error } = pages;
  if (!error && items.length === 0) return null;
  const unresolved = items.filter((row) => row.status === 'unresolved').length;
  return (
    <section class="card issue-feedback" aria-labelledby="issue-feedback-title">
      <h2 id="issue-feedback-title">
        User feedback{' '}
        <span class="muted small">
          ({plural(items.length, 'report')}
          {next ? '+' : ''}, {unresolved} unresolved)
        </span>
      </h2>
      <ErrorMessage error={error} onRetry={() => void pages.load(null)} />
      <ul class="feedback-list">
        {items.map((feedback) => (
          <li key={feedback.id}>
            <FeedbackItem feedback={feedback} onChange={(changed) => pages.setItems((rows) => rows.map((row) => (row.id === changed.id ? changed : row)))} />
          </li>
        ))}
      </ul>
      {next && (
        <button type="button" class="btn btn-small btn-block" disabled={loading} onClick={() => void pages.load(next)}>
          {loading ? 'Loading…' : 'Load older feedback'}
        </button>
      )}
    </section>
  );
}
