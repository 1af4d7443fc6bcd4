import { useEffect, useRef, useState } from 'preact/hooks';
import { useCan } from '../access';
import type { paths } from '../api-schema';
import { call, client } from '../api';
import { Empty, ErrorMessage, Loading, useAsync, useTitle, ProjectLoadError } from '../components';
import { useTeams } from '../people';
import { navigate, useLocation } from '../router';
import { setFilter } from '../search-query';
import { DsnSetup } from './DsnSetup';
import { EventChart } from './EventChart';
import { BulkActionsBar, BulkSelection, useBulkActions } from './IssueBulkActions';
import { DEFAULT_QUERY, IssueFilters, ListParams } from './IssueFilters';
import { focusIssueLink, issueLinks, rememberListUrl, useIssueKeys, useReturnToRow } from './IssueListPlace';
import { IssueListToolbar, useAutoRefreshSetting } from './IssueListToolbar';
import { byCursor, IssuePager, PAGE_SIZE } from './IssuePager';
import { IssueTable } from './IssueTable';
import { ProjectHeader, useProject } from './ProjectHeader';
import { QuotaRefusalBanner } from './QuotaRefusalBanner';

const REFRESH_MS = 30_000;
type IssueSort = NonNullable<paths['/api/projects/{projectId}/issues']['get']['parameters']['query']>['sort'];
/** While a new project waits for its first event, the list asks this often. */
const FIRST_EVENT_POLL_MS = 3_000;

/** Why the server refused a search, in plain words. */
export function searchErrorText(message: string): string {
  const unknownKey = /unknown key "([^"]*)"/.exec(message);
  if (unknownKey) {
    return `No event of this project has a tag called "${unknownKey[1]}". To search for text that contains a colon, put it in quotes, like "${unknownKey[1]}:…".`;
  }
  const text = message.replace(/^query:\s*/, '');
  return text ? `${text[0].toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}` : 'The server refused it.';
}

export function IssuesPage({ projectId }: { projectId: number }) {
  const location = useLocation();
  const triage = useCan()('project:triage');
  const params: ListParams = {
    query: location.query.has('query') ? (location.query.get('query') ?? '') : DEFAULT_QUERY,
    environment: location.query.get('environment') ?? '',
    sort: location.query.get('sort') ?? 'last_seen',
    page: Math.max(1, Math.floor(Number(location.query.get('page') ?? '1')) || 1),
    cursor: location.query.get('cursor') ?? '',
  };
  const offset = (params.page - 1) * PAGE_SIZE;
  const cursorPage = byCursor(params);
  const project = useProject(projectId);
  useTitle(project.data ? `${project.data.name} issues` : 'Issues');
  const issues = useAsync(
    () =>
      call(
        client.GET('/api/projects/{projectId}/issues', {
          params: {
            path: { projectId },
            query: {
              query: params.query,
              environment: params.environment,
              // As the address has it: a sort the API does not know is its error to show.
              sort: params.sort === 'last_seen' ? undefined : (params.sort as IssueSort),
              limit: PAGE_SIZE,
              stats: '24h',
              offset: cursorPage || offset === 0 ? undefined : offset,
              cursor: cursorPage ? params.cursor : undefined,
            },
          },
        }),
      ),
    [projectId, params.query, params.environment, params.sort, params.page, params.cursor],
  );
  const environments = useAsync(
    () => call(client.GET('/api/projects/{id}/environments', { params: { path: { id: projectId } } })),
    [projectId],
  );
  const releases = useAsync(
    () => call(client.GET('/api/projects/{projectId}/releases', { params: { path: { projectId }, query: { limit: 100 } } })),
    [projectId],
  );
  // The teams that see this project, for the assignee picker; without them it offers "me" only.
  const teams = (useTeams().data ?? []).filter((team) => team.project_ids.includes(projectId));

  const [selected, setSelected] = useState<Set<number>>(new Set());
  /** Every issue the search matches is selected, not only this page's: bulk actions go by query. */
  const [allMatching, setAllMatching] = useState(false);
  const [chartReload, setChartReload] = useState(0);
  const [autoRefresh, setAutoRefresh] = useAutoRefreshSetting();
  const actions = useBulkActions(projectId, (changed) => {
    if (changed) {
      setSelected(new Set());
      setAllMatching(false);
    }
    issues.reload();
  });

  const listKey = `${projectId} ${params.query} ${params.environment} ${params.sort} ${params.page} ${params.cursor}`;
  useEffect(() => {
    setSelected(new Set());
    setAllMatching(false);
    actions.forget();
  }, [listKey]);
  useEffect(() => rememberListUrl(projectId, location.path + window.location.search), [projectId, listKey]);

  /** The server refused the search itself (400): what was listed before does not answer it. */
  const refused = issues.error !== null && issues.status === 400;
  const shown = refused ? undefined : issues.data;
  const rows = shown?.data ?? [];
  useIssueKeys();
  useReturnToRow(rows);
  const [testEventSent, setTestEventSent] = useState(false);
  const rowIds = rows.map((issue) => issue.id).join(',');
  // Counted for the page shown only: one probe per issue, never the project's whole feedback.
  const feedbackCounts = useAsync(
    async () =>
      rowIds === ''
        ? new Map<number, number>()
        : new Map(
            (
              await call(client.GET('/api/projects/{id}/feedback-counts', { params: { path: { id: projectId }, query: { issue_ids: rowIds } } }))
            ).data.map((count) => [count.issue_id, count.unresolved]),
          ),
    [projectId, rowIds],
  );
  const noIssuesAtAll = params.query === DEFAULT_QUERY && !params.environment && params.page === 1 && issues.data?.total === 0;

  // Background refresh: the list every half minute (while the tab is visible and nothing is being
  // chosen), and every few seconds while a new project waits for its first event.
  const idle = selected.size === 0 && actions.busy === null;
  const latest = useRef({ idle, noIssuesAtAll, autoRefresh });
  latest.current = { idle, noIssuesAtAll, autoRefresh };
  useEffect(() => {
    const every = noIssuesAtAll ? FIRST_EVENT_POLL_MS : REFRESH_MS;
    const timer = window.setInterval(() => {
      const now = latest.current;
      if (document.visibilityState !== 'visible' || !now.idle) return;
      if (!now.noIssuesAtAll && !now.autoRefresh) return;
      issues.refresh();
      if (!now.noIssuesAtAll) setChartReload((n) => n + 1);
    }, every);
    return () => window.clearInterval(timer);
  }, [noIssuesAtAll, listKey]);

  const go = (change: Partial<ListParams>) => {
    const next = { ...params, page: 1, cursor: '', ...change };
    const search = new URLSearchParams();
    // An empty query is kept in the URL: it means "all issues", where no query means the default view.
    if (next.query !== DEFAULT_QUERY) search.set('query', next.query);
    if (next.environment) search.set('environment', next.environment);
    if (next.sort !== 'last_seen') search.set('sort', next.sort);
    if (next.page > 1) search.set('page', String(next.page));
    if (next.cursor) search.set('cursor', next.cursor);
    const text = search.toString();
    navigate(`/projects/${projectId}/issues${text ? `?${text}` : ''}`);
  };

  const total = shown?.total ?? 0;
  const estimated = shown?.total_is_estimate ?? false;
  const allSelected = rows.length > 0 && rows.every((issue) => selected.has(issue.id));
  const selectedIssues = rows.filter((issue) => selected.has(issue.id));
  const selection: BulkSelection = allMatching
    ? { query: params.environment ? setFilter(params.query, 'environment', params.environment) : params.query }
    : { ids: [...selected] };

  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
    setAllMatching(false);
  };
  const selectPage = (on: boolean) => {
    setSelected(on ? new Set(rows.map((issue) => issue.id)) : new Set());
    setAllMatching(false);
  };

  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;

  return (
    <>
      <ProjectHeader
        project={project.data}
        active="issues"
        afterHeading={
          <a
            href="#issue-list"
            class="skip-to-list"
            onClick={(event) => {
              event.preventDefault();
              const first = issueLinks()[0];
              if (first) focusIssueLink(first);
              else document.getElementById('issue-list')?.focus();
            }}
          >
            Skip to the issue list
          </a>
        }
      />
      <QuotaRefusalBanner projectId={projectId} />
      <details class="card setup-card" open={noIssuesAtAll || testEventSent}>
        <summary>DSN and SDK setup</summary>
        <DsnSetup
          project={project.data}
          onTestEventStored={() => {
            // The setup stays open with its link to the test event's issue, now listed below.
            setTestEventSent(true);
            issues.refresh();
          }}
        />
        {noIssuesAtAll && (
          <p class="waiting" role="status">
            <span class="spinner" aria-hidden="true" /> Waiting for the first event… this page updates on its own.
          </p>
        )}
      </details>
      {!noIssuesAtAll && (
        <section class="card" aria-label="Events of this project">
          <EventChart of={{ projectId }} storageKey="chart-period:project" reloadKey={chartReload} />
        </section>
      )}

      <IssueFilters
        projectId={projectId}
        params={params}
        go={go}
        environments={environments.data?.data.map((row) => row.name) ?? []}
        releases={releases.data?.data.map((row) => row.version) ?? []}
        teams={teams}
      />

      <IssueListToolbar
        total={shown ? { count: total, estimated } : null}
        environment={params.environment}
        autoRefresh={autoRefresh}
        onAutoRefresh={setAutoRefresh}
        onRefresh={() => {
          issues.reload();
          setChartReload((n) => n + 1);
        }}
        refreshing={issues.loading}
      />

      {triage && rows.length > 0 && (
        <label class="check list-select-all">
          <input type="checkbox" checked={allSelected} onChange={() => selectPage(!allSelected)} />
          Select all on this page
        </label>
      )}

      {selected.size > 0 && (
        <BulkActionsBar
          actions={actions}
          selection={selection}
          selectedIssues={selectedIssues}
          selectedCount={allMatching ? total : selected.size}
          allMatching={allMatching}
          estimated={estimated}
          offerAllMatching={allSelected && !allMatching && total > rows.length ? total : null}
          teams={teams}
          onSelectAllMatching={() => setAllMatching(true)}
          onClear={() => selectPage(false)}
        />
      )}
      <ErrorMessage error={actions.error} />
      {actions.notice && (
        <div class="alert alert-success" role="status">
          {actions.notice}
        </div>
      )}
      {refused ? (
        <div class="alert alert-error search-refused" role="alert">
          <p>
            <strong>This search could not be run.</strong> {searchErrorText(issues.error ?? '')}
          </p>
          <button type="button" class="btn btn-small" onClick={() => go({ query: DEFAULT_QUERY, environment: '' })}>
            Clear the search
          </button>
        </div>
      ) : (
        <ErrorMessage error={issues.error} onRetry={issues.reload} status={issues.status} />
      )}
      {issues.loading && !issues.data && <Loading label="Loading issues…" />}

      {shown &&
        rows.length === 0 &&
        (noIssuesAtAll ? (
          <Empty title="No issues yet — send your first error with the DSN above.">
            Issues appear here a few seconds after your application reports its first error.
          </Empty>
        ) : (
          <Empty title={params.page > 1 ? 'No more issues.' : 'No issues match this search.'}>
            {params.query !== '' && (
              <button type="button" class="btn btn-small" onClick={() => go({ query: '', environment: '' })}>
                Show all issues
              </button>
            )}
          </Empty>
        ))}

      {rows.length > 0 && (
        <IssueTable
          rows={rows}
          triage={triage}
          selected={selected}
          allSelected={allSelected}
          loading={issues.loading}
          onToggle={toggle}
          onSelectPage={selectPage}
          feedbackCounts={feedbackCounts.data}
        />
      )}

      {shown && (params.page > 1 || shown.next_cursor) && (
        <IssuePager key={listKey} params={params} total={total} estimated={estimated} nextCursor={shown.next_cursor} go={go} />
      )}
    </>
  );
}
