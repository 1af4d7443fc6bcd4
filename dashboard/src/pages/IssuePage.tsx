import { useEffect, useState } from 'preact/hooks';
import { useCan } from '../access';
import { call, client, errorMessage, FullEvent, qs } from '../api';
import { Badge, DeadEnd, Empty, ErrorMessage, Loading, RelTime, useAsync, useTitle } from '../components';
import { useCursorPages } from '../lists';
import { usePeople } from '../people';
import { navigate, useLocation } from '../router';
import { filesText } from '../attachment-words';
import { EventChart } from './EventChart';
import { fileSize } from './EventAttachments';
import { EventDetail, EventNavigation } from './EventDetail';
import { ActivityLog } from './IssueActivity';
import { AssigneeControl } from './IssueAssignee';
import { Comments } from './IssueComments';
import { IssueFeedback } from './FeedbackPage';
import { IssueTags } from './IssueTags';
import { IssueReleases } from './IssueReleases';
import { MonitorIssuePanel } from './MonitorIssuePanel';
import { ReleaseLink } from './ReleaseFigures';
import { lastListUrl, rememberedListUrl } from './IssueListPlace';
import { LevelMarker, StateBadge } from './IssueMarkers';
import { stateCondition, TriageActions, TriageChoice } from './TriageActions';

const EVENTS_PAGE = 100;
/** The server keeps an issue's message up to this length; its events keep all of it. */
const STORED_MESSAGE_LENGTH = 1000;
/** Longer messages than this may not fit the header's two lines: the whole text is offered below. */
const LONG_MESSAGE = 140;

/** The whole message of an issue: its event's exception value (or message) when that starts with it. */
function fullMessageOf(message: string, event: FullEvent | undefined): string {
  const candidates: unknown[] = [];
  const exception = event?.exception as { values?: { value?: unknown }[] } | undefined;
  for (const value of exception?.values ?? []) candidates.push(value?.value);
  const logentry = event?.logentry as { formatted?: unknown; message?: unknown } | undefined;
  candidates.push(event?.message, logentry?.formatted, logentry?.message);
  const whole = candidates.find(
    (text): text is string =>
      typeof text === 'string' &&
      text.length > message.length &&
      text.replace(/\s+/g, ' ').startsWith(message.slice(0, 200)),
  );
  if (whole) return whole;
  return message.length >= STORED_MESSAGE_LENGTH ? `${message}…` : message;
}

/** Under the header's two clamped lines: the whole message, one click away. */
function FullMessage({ message, event }: { message: string; event: FullEvent | undefined }) {
  const whole = fullMessageOf(message, event);
  if (whole.length <= LONG_MESSAGE && !whole.includes('\n')) return null;
  return (
    <details class="full-message">
      <summary>Show full message ({whole.length.toLocaleString()} characters)</summary>
      <p class="full-message-text" dir="auto">
        {whole}
      </p>
    </details>
  );
}

export function IssuePage({ issueId }: { issueId: number }) {
  const location = useLocation();
  const triage = useCan()('project:triage');
  const people = usePeople();
  const issue = useAsync(
    () => call(client.GET('/api/issues/{id}', { params: { path: { id: issueId } } })),
    [issueId],
  );
  const project = useAsync(
    () =>
      issue.data
        ? call(client.GET('/api/projects/{id}', { params: { path: { id: issue.data.project_id } } }))
        : Promise.resolve(undefined),
    [issue.data?.project_id],
  );
  useTitle(issue.data ? `${issue.data.short_id} ${issue.data.type}` : 'Issue');

  const eventPages = useCursorPages(
    (cursor) =>
      call(
        client.GET('/api/issues/{issueId}/events', {
          params: { path: { issueId }, query: { limit: EVENTS_PAGE, cursor } },
        }),
      ),
    true,
  );
  const {
    items: events,
    next: nextCursor,
    loading: eventsLoading,
    error: eventsError,
    load: loadEvents,
  } = eventPages;
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [activityReload, setActivityReload] = useState(0);

  // A merged issue's address answers with the issue it went into: show that one under its own address.
  const mergedInto = issue.data && issue.data.id !== issueId ? issue.data.id : null;
  useEffect(() => {
    if (mergedInto !== null)
      navigate(`/issues/${mergedInto}${qs({ merged_from: issueId })}`, { replace: true });
  }, [mergedInto]);

  useEffect(() => {
    eventPages.clear();
    void loadEvents(null);
  }, [issueId]);

  const selectedId = location.query.get('event') ?? events[0]?.id ?? null;
  const selected = useAsync(
    () =>
      selectedId
        ? call(client.GET('/api/events/{id}', { params: { path: { id: selectedId } } }))
        : Promise.resolve(undefined),
    [selectedId],
  );
  const files = useAsync(
    () => call(client.GET('/api/issues/{id}/attachments', { params: { path: { id: issueId } } })),
    [issueId],
  );
  // Choosing an event replaces the address rather than adding to the history: Back leaves the issue.
  const showEvent = (id: string) => navigate(`/issues/${issueId}${qs({ event: id })}`, { replace: true });

  const changeState = async (choice: TriageChoice) => {
    setBusy(choice.label);
    setActionError(null);
    try {
      issue.setData(
        await call(
          client.PATCH('/api/issues/{id}', { params: { path: { id: issueId } }, body: choice.change() }),
        ),
      );
      setActivityReload((n) => n + 1);
    } catch (failure) {
      setActionError(errorMessage(failure));
    } finally {
      setBusy(null);
    }
  };

  if (issue.error && (issue.status === 404 || issue.status === 403)) {
    const lastList = lastListUrl();
    return (
      <DeadEnd
        title="Issue not found"
        links={[
          ...(lastList ? [{ href: lastList, label: 'Back to issues' }] : []),
          { href: '/', label: 'Back to projects' },
        ]}
      >
        There is no issue {issueId} here: it may have been deleted, or it belongs to a project none of your
        teams can see.
      </DeadEnd>
    );
  }
  if (issue.error) return <ErrorMessage error={issue.error} onRetry={issue.reload} status={issue.status} />;
  if (!issue.data || mergedInto !== null) return <Loading label="Loading issue…" />;
  const current = issue.data;
  // A monitor's issue counts its failures, not events: it shows the monitor and its failures instead.
  const isMonitorIssue = current.kind !== 'error' && current.monitor !== null;
  const condition = stateCondition(current);
  const mergedFrom = location.query.get('merged_from');

  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={rememberedListUrl(current.project_id)} class="back-link">
          ← Back to issues
        </a>
        <span class="crumb-path">
          <a href="/">Projects</a> <span aria-hidden="true">/</span>{' '}
          <a href={`/projects/${current.project_id}/issues`}>
            {project.data?.name ?? `Project ${current.project_id}`}
          </a>{' '}
          <span aria-hidden="true">/</span> <span>{current.short_id}</span>
        </span>
      </nav>
      {mergedFrom && (
        <div class="alert alert-info" role="status">
          Issue {mergedFrom} was merged into this one.
        </div>
      )}

      <header class="card issue-header">
        <div class="issue-header-main">
          <div class="issue-meta-line">
            <LevelMarker level={current.level} />
            <span class="short-id">{current.short_id}</span>
            <StateBadge state={current.state} />
            {current.level && <Badge kind={`level-${current.level}`}>{current.level}</Badge>}
            {current.kind && current.kind !== 'error' && (
              <Badge kind="monitor">{current.kind === 'cron' ? 'Cron monitor' : 'Uptime monitor'}</Badge>
            )}
            {condition && <span class="muted small state-condition">{condition}</span>}
          </div>
          <h1 class="issue-heading" tabIndex={-1}>
            <span class="issue-type">{current.type || 'Message'}</span>
            {current.message && (
              <span class="issue-message clamp-2" dir="auto">
                {current.message}
              </span>
            )}
          </h1>
          <FullMessage message={current.message} event={selected.data} />
          {current.culprit && <p class="culprit mono">{current.culprit}</p>}
          <dl class="issue-stats">
            <div>
              <dt>{isMonitorIssue ? 'Failures' : 'Events'}</dt>
              <dd>{current.event_count.toLocaleString()}</dd>
            </div>
            {typeof current.user_count === 'number' && !isMonitorIssue && (
              <div>
                <dt>Users affected</dt>
                <dd>{current.user_count.toLocaleString()}</dd>
              </div>
            )}
            <div>
              <dt>First seen</dt>
              <dd>
                <RelTime value={current.first_seen} />
                {current.first_release && (
                  <span class="release-line">
                    in <ReleaseLink projectId={current.project_id} version={current.first_release} />
                  </span>
                )}
              </dd>
            </div>
            <div>
              <dt>Last seen</dt>
              <dd>
                <RelTime value={current.last_seen} />
                {current.last_release && (
                  <span class="release-line">
                    in <ReleaseLink projectId={current.project_id} version={current.last_release} />
                  </span>
                )}
              </dd>
            </div>
            {files.data && files.data.files > 0 && (
              <div>
                <dt>Attachments</dt>
                <dd>
                  {`${filesText(files.data.files)} · ${fileSize(files.data.bytes)}`}
                  <span class="release-line">
                    {`in ${files.data.events.toLocaleString()} ${files.data.events === 1 ? 'event' : 'events'} · `}
                    {files.data.latest_event_id && (
                      <a
                        href={`/issues/${issueId}${qs({ event: files.data.latest_event_id })}#attachments`}
                        onClick={(clickEvent) => {
                          clickEvent.preventDefault();
                          showEvent(files.data?.latest_event_id as string);
                        }}
                      >
                        {files.data.events === 1 ? 'show' : 'show the newest'}
                      </a>
                    )}
                  </span>
                </dd>
              </div>
            )}
            <div>
              <dt>Regressions</dt>
              <dd>
                {(current.regression_count ?? 0).toLocaleString()}
                {current.last_regressed_at && (
                  <span class="release-line">
                    last <RelTime value={current.last_regressed_at} />
                  </span>
                )}
              </dd>
            </div>
          </dl>
          {!isMonitorIssue && <IssueReleases issue={current} />}
        </div>
        <div class="issue-side">
          {triage && (
            <TriageActions
              states={[current.state]}
              busy={busy}
              onChoose={(choice) => void changeState(choice)}
            />
          )}
          <AssigneeControl
            issue={current}
            people={people}
            onAssigned={(updated) => {
              issue.setData(updated);
              setActivityReload((n) => n + 1);
            }}
          />
        </div>
      </header>
      <ErrorMessage error={actionError} />

      <IssueFeedback issueId={issueId} />

      {/* The team's conversation right under the header, not below the event's long detail. */}
      <div class="issue-discussion">
        <Comments issueId={issueId} onCommented={() => setActivityReload((n) => n + 1)} />
        <ActivityLog issueId={issueId} reloadKey={activityReload} people={people.data} />
      </div>

      {isMonitorIssue ? (
        <MonitorIssuePanel issue={current} />
      ) : (
        <>
        <div class="card">
          <EventChart of={{ issueId }} storageKey="chart-period:issue" />
        </div>
        <IssueTags issueId={issueId} />

        <div class="issue-layout">
          <aside class="card events-panel" aria-labelledby="events-title">
            <h2 id="events-title">Events</h2>
            <p class="muted small">Newest first</p>
            <ErrorMessage error={eventsError} onRetry={() => void loadEvents(null)} />
            {events.length === 0 && eventsLoading && <Loading label="Loading events…" />}
            {events.length === 0 && !eventsLoading && !eventsError && (
              <Empty title="No events stored for this issue." />
            )}
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
                        showEvent(event.id);
                      }}
                    >
                      <span class="event-item-time">
                        <RelTime value={event.timestamp} />
                      </span>
                      <span class="event-item-meta muted small">
                        {[event.environment, event.release, user].filter(Boolean).join(' · ') ||
                          event.id.slice(0, 8)}
                      </span>
                      {event.attachment_count > 0 && (
                        <span class="event-item-files small">{filesText(event.attachment_count)}</span>
                      )}
                    </a>
                  </li>
                );
              })}
            </ul>
            {nextCursor && (
              <button
                type="button"
                class="btn btn-small btn-block"
                disabled={eventsLoading}
                onClick={() => void loadEvents(nextCursor)}
              >
                {eventsLoading ? 'Loading…' : 'Load older events'}
              </button>
            )}
          </aside>

          <section class="card event-panel" aria-labelledby="event-title">
            <div class="section-head">
              <h2 id="event-title">{selectedId ? 'Event' : 'Event details'}</h2>
              {selected.data && <EventNavigation issueId={issueId} event={selected.data} onShow={showEvent} />}
            </div>
            <ErrorMessage error={selected.error} onRetry={selected.reload} />
            {selectedId && selected.loading && <Loading label="Loading event…" />}
            {!selectedId && !eventsLoading && <p class="muted">Select an event to see its details.</p>}
            {selected.data && !selected.loading && <EventDetail event={selected.data} />}
          </section>
        </div>
        </>
      )}
    </>
  );
}
