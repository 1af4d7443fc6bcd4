import { useEffect, useState } from 'preact/hooks';
import { api, errorMessage, EventItem, Issue, IssueState, Page, Project, qs } from '../api';
import { Badge, Empty, ErrorMessage, Loading, RelTime, useAsync, useTitle } from '../components';
import { navigate, useLocation } from '../router';
import { EventChart } from './EventChart';
import { EventDetail } from './EventDetail';
import { IssueTags } from './IssueTags';
import { StateBadge, STATE_ACTIONS } from './IssuesPage';

const EVENTS_PAGE = 100;

export function IssuePage({ issueId }: { issueId: number }) {
  const location = useLocation();
  const issue = useAsync(() => api.get<Issue>(`/api/issues/${issueId}`), [issueId]);
  const project = useAsync(
    () => (issue.data ? api.get<Project>(`/api/projects/${issue.data.project_id}`) : Promise.resolve(undefined)),
    [issue.data?.project_id],
  );
  useTitle(issue.data ? `${issue.data.short_id} ${issue.data.type}` : 'Issue');

  const [events, setEvents] = useState<EventItem[]>([]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [eventsLoading, setEventsLoading] = useState(true);
  const [eventsError, setEventsError] = useState<string | null>(null);
  const [busy, setBusy] = useState<IssueState | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const loadEvents = async (cursor: string | null) => {
    setEventsLoading(true);
    setEventsError(null);
    try {
      const page = await api.get<Page<EventItem>>(`/api/issues/${issueId}/events${qs({ limit: EVENTS_PAGE, cursor })}`);
      setEvents((previous) => (cursor ? [...previous, ...page.data] : page.data));
      setNextCursor(page.next_cursor);
    } catch (failure) {
      setEventsError(errorMessage(failure));
    } finally {
      setEventsLoading(false);
    }
  };

  useEffect(() => {
    setEvents([]);
    setNextCursor(null);
    void loadEvents(null);
  }, [issueId]);

  const selectedId = location.query.get('event') ?? events[0]?.id ?? null;
  const selected = useAsync(
    () => (selectedId ? api.get<Record<string, unknown>>(`/api/events/${selectedId}`) : Promise.resolve(undefined)),
    [selectedId],
  );

  const changeState = async (state: IssueState) => {
    setBusy(state);
    setActionError(null);
    try {
      issue.setData(await api.patch<Issue>(`/api/issues/${issueId}`, { state }));
    } catch (failure) {
      setActionError(errorMessage(failure));
    } finally {
      setBusy(null);
    }
  };

  if (issue.error) return <ErrorMessage error={issue.error} onRetry={issue.reload} />;
  if (!issue.data) return <Loading label="Loading issue…" />;
  const current = issue.data;

  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Projects</a> <span aria-hidden="true">/</span>{' '}
        <a href={`/projects/${current.project_id}/issues`}>{project.data?.name ?? `Project ${current.project_id}`}</a>{' '}
        <span aria-hidden="true">/</span> <span>{current.short_id}</span>
      </nav>

      <header class="card issue-header">
        <div class="issue-header-main">
          <div class="issue-meta-line">
            <span class="short-id">{current.short_id}</span>
            <StateBadge state={current.state} />
            {current.level && <Badge kind={`level-${current.level}`}>{current.level}</Badge>}
          </div>
          <h1 class="issue-heading">
            <span class="issue-type">{current.type || 'Message'}</span>
            {current.message && <span class="issue-message">{current.message}</span>}
          </h1>
          {current.culprit && <p class="culprit mono">{current.culprit}</p>}
          <dl class="issue-stats">
            <div>
              <dt>Events</dt>
              <dd>{current.event_count.toLocaleString()}</dd>
            </div>
            {typeof current.user_count === 'number' && (
              <div>
                <dt>Users affected</dt>
                <dd>{current.user_count.toLocaleString()}</dd>
              </div>
            )}
            <div>
              <dt>First seen</dt>
              <dd>
                <RelTime value={current.first_seen} />
              </dd>
            </div>
            <div>
              <dt>Last seen</dt>
              <dd>
                <RelTime value={current.last_seen} />
              </dd>
            </div>
          </dl>
        </div>
        <div class="issue-actions" role="group" aria-label="Issue state">
          {STATE_ACTIONS.filter((action) => action.state !== current.state).map((action) => (
            <button
              key={action.state}
              type="button"
              class={action.state === 'resolved' ? 'btn btn-primary' : 'btn'}
              disabled={busy !== null}
              onClick={() => void changeState(action.state)}
            >
              {busy === action.state ? action.busy : action.label}
            </button>
          ))}
        </div>
      </header>
      <ErrorMessage error={actionError} />

      <div class="card">
        <EventChart path={`/api/issues/${issueId}/stats`} storageKey="chart-period:issue" />
      </div>
      <IssueTags issueId={issueId} />

      <div class="issue-layout">
        <aside class="card events-panel" aria-labelledby="events-title">
          <h2 id="events-title">Events</h2>
          <p class="muted small">Newest first</p>
          <ErrorMessage error={eventsError} onRetry={() => void loadEvents(null)} />
          {events.length === 0 && eventsLoading && <Loading label="Loading events…" />}
          {events.length === 0 && !eventsLoading && !eventsError && <Empty title="No events stored for this issue." />}
          <ul class="event-list">
            {events.map((event) => {
              const active = event.id === selectedId;
              const user = event.user?.email ?? event.user?.id ?? null;
              return (
                <li key={event.id}>
                  <a
                    href={`/issues/${issueId}${qs({ event: event.id })}`}
                    class={active ? 'event-item active' : 'event-item'}
                    aria-current={active ? 'true' : undefined}
                    onClick={(clickEvent) => {
                      clickEvent.preventDefault();
                      navigate(`/issues/${issueId}${qs({ event: event.id })}`, { replace: true });
                    }}
                  >
                    <span class="event-item-time">
                      <RelTime value={event.timestamp} />
                    </span>
                    <span class="event-item-meta muted small">
                      {[event.environment, event.release, user].filter(Boolean).join(' · ') || event.id.slice(0, 8)}
                    </span>
                  </a>
                </li>
              );
            })}
          </ul>
          {nextCursor && (
            <button type="button" class="btn btn-small btn-block" disabled={eventsLoading} onClick={() => void loadEvents(nextCursor)}>
              {eventsLoading ? 'Loading…' : 'Load older events'}
            </button>
          )}
        </aside>

        <section class="card event-panel" aria-labelledby="event-title">
          <h2 id="event-title">{selectedId ? 'Event' : 'Event details'}</h2>
          <ErrorMessage error={selected.error} onRetry={selected.reload} />
          {selectedId && selected.loading && <Loading label="Loading event…" />}
          {!selectedId && !eventsLoading && <p class="muted">Select an event to see its details.</p>}
          {selected.data && !selected.loading && <EventDetail event={selected.data} />}
        </section>
      </div>
    </>
  );
}
