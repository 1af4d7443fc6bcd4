import { useEffect, useRef, useState } from 'preact/hooks';
import { useCan, useMe } from '../access';
import type { paths } from '../api-schema';
import { call, client, errorMessage, Issue, Team } from '../api';
import { Badge, Empty, ErrorMessage, Loading, Menu, RelTime, Sparkline, useAsync, useTitle, ProjectLoadError } from '../components';
import { navigate, useLocation } from '../router';
import { filterValue, setFilter } from '../search-query';
import { plural } from '../util';
import { DsnSetup } from './DsnSetup';
import { EventChart } from './EventChart';
import { AssigneeTag } from './IssueCollaboration';
import { IssueSearchBox } from './IssueSearchBox';
import { ProjectHeader, useProject } from './ProjectHeader';
import { TriageActions, TriageChoice } from './TriageActions';

const PAGE_SIZE = 50;
/** What the list shows when the URL names no search. */
export const DEFAULT_QUERY = 'is:unresolved';
/** The API jumps to a page by offset up to here (its exact total's bound); further pages go by cursor. */
const MAX_OFFSET = 10_000;
const REFRESH_MS = 30_000;
type IssueSort = NonNullable<paths['/api/projects/{projectId}/issues']['get']['parameters']['query']>['sort'];
/** While a new project waits for its first event, the list asks this often. */
const FIRST_EVENT_POLL_MS = 3_000;

const SORTS = [
  { value: 'last_seen', label: 'Last seen' },
  { value: 'first_seen', label: 'First seen' },
  { value: 'events', label: 'Events' },
  { value: 'users', label: 'Users' },
] as const;

const STATE_VIEWS = [
  { value: 'unresolved', label: 'Unresolved' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'muted', label: 'Muted' },
  { value: null, label: 'All' },
] as const;

/** Why the server refused a search, in plain words. */
export function searchErrorText(message: string): string {
  const unknownKey = /unknown key "([^"]*)"/.exec(message);
  if (unknownKey) {
    return `No event of this project has a tag called "${unknownKey[1]}". To search for text that contains a colon, put it in quotes, like "${unknownKey[1]}:…".`;
  }
  const text = message.replace(/^query:\s*/, '');
  return text ? `${text[0].toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}` : 'The server refused it.';
}

export function issueTitle(issue: Pick<Issue, 'type' | 'message'>): string {
  if (issue.type && issue.message) return `${issue.type}: ${issue.message}`;
  return issue.type || issue.message || '(no message)';
}

export function StateBadge({ state }: { state: string }) {
  return <Badge kind={state}>{state}</Badge>;
}

export function LevelMarker({ level }: { level?: string }) {
  const name = level || 'error';
  return (
    <span class={`level-marker level-${name}`} title={`Level: ${name}`}>
      <span class="sr-only">Level {name}</span>
    </span>
  );
}

/** Where the issue page's "Back to issues" returns: the list as it was last shown, per project. */
const LIST_URL_KEY = 'issue-list-url';

export function rememberedListUrl(projectId: number): string {
  try {
    const stored = window.sessionStorage.getItem(`${LIST_URL_KEY}:${projectId}`);
    if (stored && stored.startsWith(`/projects/${projectId}/issues`)) return stored;
  } catch {
    // storage blocked: the default list
  }
  return `/projects/${projectId}/issues`;
}

/** The issue list last shown, of any project: where a missing issue's page offers to go back to. */
export function lastListUrl(): string | null {
  try {
    const stored = window.sessionStorage.getItem(LIST_URL_KEY);
    if (stored && /^\/projects\/\d+\/issues/.test(stored)) return stored;
  } catch {
    // storage blocked
  }
  return null;
}

function rememberListUrl(projectId: number, url: string): void {
  try {
    window.sessionStorage.setItem(`${LIST_URL_KEY}:${projectId}`, url);
    window.sessionStorage.setItem(LIST_URL_KEY, url);
  } catch {
    // storage blocked: Back goes to the default list
  }
}

/** Where the list was left for an issue: restored when the list comes back (Back, "Back to issues"). */
const RETURN_KEY = 'issue-list-return';

interface ReturnPoint {
  url: string;
  issueId: number;
  /** The row's distance from the top of the window when it was opened. */
  top: number;
}

function rememberReturnPoint(issueId: number, link: HTMLElement): void {
  const point: ReturnPoint = {
    url: window.location.pathname + window.location.search,
    issueId,
    top: link.closest('tr')?.getBoundingClientRect().top ?? link.getBoundingClientRect().top,
  };
  try {
    window.sessionStorage.setItem(RETURN_KEY, JSON.stringify(point));
  } catch {
    // storage blocked: the list opens at its top
  }
}

function takeReturnPoint(): ReturnPoint | null {
  try {
    const stored = window.sessionStorage.getItem(RETURN_KEY);
    if (!stored) return null;
    const point = JSON.parse(stored) as ReturnPoint;
    if (point.url !== window.location.pathname + window.location.search) return null;
    window.sessionStorage.removeItem(RETURN_KEY);
    return point;
  } catch {
    return null;
  }
}

const issueLinks = () => [...document.querySelectorAll<HTMLAnchorElement>('.issues-table .issue-link')];

function focusIssueLink(link: HTMLAnchorElement | undefined): void {
  if (!link) return;
  link.focus({ preventScroll: true });
  link.closest('tr')?.scrollIntoView({ block: 'nearest' });
}

/** `j` and `k` move to the next and previous issue of the list (Enter opens it), outside text fields. */
function useIssueKeys(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key !== 'j' && event.key !== 'k') return;
      if ((event.target as Element | null)?.closest?.('input, textarea, select, [contenteditable]')) return;
      const links = issueLinks();
      if (links.length === 0) return;
      event.preventDefault();
      const at = links.indexOf(document.activeElement as HTMLAnchorElement);
      const next = at === -1 ? 0 : Math.min(links.length - 1, Math.max(0, at + (event.key === 'j' ? 1 : -1)));
      focusIssueLink(links[next]);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

function readAutoRefresh(): boolean {
  try {
    return window.localStorage.getItem('issues-auto-refresh') !== 'off';
  } catch {
    return true;
  }
}

interface ListParams {
  query: string;
  environment: string;
  sort: string;
  page: number;
  /** Only for pages past MAX_OFFSET, which the API reaches by cursor. */
  cursor: string;
}

export function IssuesPage({ projectId }: { projectId: number }) {
  const location = useLocation();
  const me = useMe();
  const triage = useCan()('project:triage');
  const params: ListParams = {
    query: location.query.has('query') ? (location.query.get('query') ?? '') : DEFAULT_QUERY,
    environment: location.query.get('environment') ?? '',
    sort: location.query.get('sort') ?? 'last_seen',
    page: Math.max(1, Math.floor(Number(location.query.get('page') ?? '1')) || 1),
    cursor: location.query.get('cursor') ?? '',
  };
  const offset = (params.page - 1) * PAGE_SIZE;
  const byCursor = params.cursor !== '' || offset > MAX_OFFSET;
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
              offset: byCursor || offset === 0 ? undefined : offset,
              cursor: byCursor ? params.cursor : undefined,
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
  const teams = useAsync(
    () =>
      call(client.GET('/api/teams'))
        .then((r) => r.data.filter((team) => team.project_ids.includes(projectId)))
        .catch(() => [] as Team[]),
    [projectId],
  );

  const [selected, setSelected] = useState<Set<number>>(new Set());
  /** Every issue the search matches is selected, not only this page's: bulk actions go by query. */
  const [allMatching, setAllMatching] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirmMerge, setConfirmMerge] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [chartReload, setChartReload] = useState(0);
  const [autoRefresh, setAutoRefresh] = useState(readAutoRefresh);
  const [jump, setJump] = useState('');

  const listKey = `${projectId} ${params.query} ${params.environment} ${params.sort} ${params.page} ${params.cursor}`;
  useEffect(() => {
    setSelected(new Set());
    setAllMatching(false);
    setConfirmMerge(false);
    setJump('');
    // What the last action said was about the list as it was: not about this one.
    setNotice(null);
    setActionError(null);
  }, [listKey]);
  useEffect(() => rememberListUrl(projectId, location.path + window.location.search), [projectId, listKey]);

  /** The server refused the search itself (400): what was listed before does not answer it. */
  const refused = issues.error !== null && issues.status === 400;
  const shown = refused ? undefined : issues.data;
  const rows = shown?.data ?? [];
  useIssueKeys();
  // Back from an issue: the row it was opened from, where it was on screen, with focus on it.
  useEffect(() => {
    if (rows.length === 0) return;
    const point = takeReturnPoint();
    if (!point) return;
    const frame = window.requestAnimationFrame(() => {
      const link = document.querySelector<HTMLAnchorElement>(`.issues-table .issue-link[href="/issues/${point.issueId}"]`);
      if (!link) return;
      const row = link.closest('tr') ?? link;
      window.scrollBy(0, row.getBoundingClientRect().top - point.top);
      link.focus({ preventScroll: true });
    });
    return () => window.cancelAnimationFrame(frame);
  }, [rows]);
  const noIssuesAtAll = params.query === DEFAULT_QUERY && !params.environment && params.page === 1 && issues.data?.total === 0;

  // Background refresh: the list every half minute (while the tab is visible and nothing is being
  // chosen), and every few seconds while a new project waits for its first event.
  const idle = selected.size === 0 && busy === null;
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
  const pageCount = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const lastJumpable = Math.min(pageCount, Math.floor(MAX_OFFSET / PAGE_SIZE) + 1);
  const allSelected = rows.length > 0 && rows.every((issue) => selected.has(issue.id));
  const selectedIssues = rows.filter((issue) => selected.has(issue.id));
  const selectedCount = allMatching ? total : selected.size;

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

  const bulkQuery = () => (params.environment ? setFilter(params.query, 'environment', params.environment) : params.query);

  const applyChoice = async (choice: TriageChoice) => {
    setBusy(choice.label);
    setActionError(null);
    setNotice(null);
    const change = choice.change();
    try {
      const selection = allMatching ? { query: bulkQuery() } : { ids: [...selected] };
      const { updated } = await call(
        client.PATCH('/api/projects/{projectId}/issues', { params: { path: { projectId } }, body: { ...selection, ...change } }),
      );
      setNotice(`${plural(updated, 'issue')} marked ${change.state}.`);
      setSelected(new Set());
      setAllMatching(false);
    } catch (failure) {
      setActionError(errorMessage(failure));
    } finally {
      setBusy(null);
      issues.reload();
    }
  };

  const assignSelected = async (assignee: string | null, label: string) => {
    setBusy('assign');
    setActionError(null);
    setNotice(null);
    try {
      const selection = allMatching ? { query: bulkQuery() } : { ids: [...selected] };
      const { updated } = await call(
        client.PATCH('/api/projects/{projectId}/issues', { params: { path: { projectId } }, body: { ...selection, assignee } }),
      );
      setNotice(`${plural(updated, 'issue')} ${assignee ? `assigned to ${label}` : 'unassigned'}.`);
      setSelected(new Set());
      setAllMatching(false);
    } catch (failure) {
      setActionError(errorMessage(failure));
    } finally {
      setBusy(null);
      issues.reload();
    }
  };

  // The merged issues fold into the one with the most events (the oldest on a tie).
  const survivor = [...selectedIssues].sort((a, b) => b.event_count - a.event_count || a.id - b.id)[0];
  const merge = async () => {
    if (!survivor) return;
    setBusy('merge');
    setActionError(null);
    setNotice(null);
    const others = selectedIssues.filter((issue) => issue.id !== survivor.id).map((issue) => issue.id);
    try {
      await call(client.POST('/api/issues/{id}/merge', { params: { path: { id: survivor.id } }, body: { ids: others } }));
      setNotice(`${plural(others.length, 'issue')} merged into ${survivor.short_id}.`);
      setSelected(new Set());
    } catch (failure) {
      setActionError(errorMessage(failure));
    } finally {
      setBusy(null);
      setConfirmMerge(false);
      issues.reload();
    }
  };

  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;
  const stateView = filterValue(params.query, 'is');
  const release = filterValue(params.query, 'release') ?? '';
  const assigned = filterValue(params.query, 'assigned') ?? '';
  const assignedOptions = [
    { value: 'me', label: 'Me' },
    ...(teams.data ?? []).map((team) => ({ value: `#${team.slug}`, label: `${team.name} (team)` })),
  ];
  const releaseOptions = releases.data?.data.map((row) => row.version) ?? [];
  const environmentOptions = environments.data?.data.map((row) => row.name) ?? [];

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
      <details class="card setup-card" open={noIssuesAtAll}>
        <summary>DSN and SDK setup</summary>
        <DsnSetup project={project.data} />
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

      <div class="filters card">
        <IssueSearchBox projectId={projectId} value={params.query} onSearch={(query) => go({ query })} />
        <div class="filter-row">
          <div class="segmented" role="group" aria-label="Show issues">
            {STATE_VIEWS.map((view) => {
              const active = view.value === null ? stateView === null : stateView === view.value || (view.value === 'unresolved' && stateView === 'open');
              return (
                <button
                  key={view.label}
                  type="button"
                  class={active ? 'seg active' : 'seg'}
                  aria-pressed={active}
                  onClick={() => go({ query: setFilter(params.query, 'is', view.value) })}
                >
                  {view.label}
                </button>
              );
            })}
          </div>
          <label class="picker">
            <span>Environment</span>
            <select name="environment" value={params.environment} onChange={(event) => go({ environment: event.currentTarget.value })}>
              <option value="">All environments</option>
              {[...new Set([...environmentOptions, ...(params.environment ? [params.environment] : [])])].map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <label class="picker">
            <span>Release</span>
            <select
              name="release"
              value={release}
              onChange={(event) => go({ query: setFilter(params.query, 'release', event.currentTarget.value || null) })}
            >
              <option value="">All releases</option>
              {[...new Set([...releaseOptions, ...(release ? [release] : [])])].map((version) => (
                <option key={version} value={version}>
                  {version}
                </option>
              ))}
            </select>
          </label>
          <label class="picker">
            <span>Assigned to</span>
            <select
              name="assigned"
              value={assigned}
              onChange={(event) =>
                go({ query: setFilter(params.query, 'assigned', event.currentTarget.value || null) })
              }
            >
              <option value="">Anyone or nobody</option>
              {assignedOptions.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
              {assigned && !assignedOptions.some((option) => option.value === assigned) && (
                <option value={assigned}>{assigned}</option>
              )}
            </select>
          </label>
          <label class="picker">
            <span>Sort by</span>
            <select name="sort" value={params.sort} onChange={(event) => go({ sort: event.currentTarget.value })}>
              {SORTS.map((sort) => (
                <option key={sort.value} value={sort.value}>
                  {sort.label}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>

      <div class="toolbar" id="issue-list" tabIndex={-1}>
        <p class="list-total" aria-live="polite">
          {shown ? (
            <>
              <strong>
                {estimated ? 'About ' : ''}
                {total.toLocaleString()}
              </strong>{' '}
              {total === 1 ? 'issue' : 'issues'}
              {params.environment ? ` in ${params.environment}` : ''}
            </>
          ) : (
            ' '
          )}
        </p>
        <div class="toolbar-actions">
          <span class="keys-hint muted small">
            <kbd>j</kbd> / <kbd>k</kbd> next / previous issue
          </span>
          <label class="check small">
            <input
              type="checkbox"
              name="auto-refresh"
              checked={autoRefresh}
              onChange={(event) => {
                const on = event.currentTarget.checked;
                setAutoRefresh(on);
                try {
                  window.localStorage.setItem('issues-auto-refresh', on ? 'on' : 'off');
                } catch {
                  // storage blocked: the choice lasts until the page is left
                }
              }}
            />
            Auto-refresh
          </label>
          <button
            type="button"
            class="btn btn-small"
            onClick={() => {
              issues.reload();
              setChartReload((n) => n + 1);
            }}
            disabled={issues.loading}
          >
            Refresh
          </button>
        </div>
      </div>

      {triage && rows.length > 0 && (
        <label class="check list-select-all">
          <input type="checkbox" checked={allSelected} onChange={() => selectPage(!allSelected)} />
          Select all on this page
        </label>
      )}

      {selected.size > 0 && (
        <div class="bulk-bar" role="region" aria-label="Bulk actions">
          <strong>{allMatching ? `All ${estimated ? 'about ' : ''}${selectedCount.toLocaleString()} matching selected` : `${selected.size} selected`}</strong>
          <TriageActions
            states={allMatching ? ['open', 'resolved', 'muted'] : selectedIssues.map((issue) => issue.state)}
            busy={busy}
            onChoose={(choice) => void applyChoice(choice)}
          />
          <Menu
            label={busy === 'assign' ? 'Assigning…' : 'Assign'}
            disabled={busy !== null}
            items={[
              ...(me.user_id !== null
                ? [{ label: 'Assign to me', onSelect: () => void assignSelected(`user:${me.user_id}`, 'you') }]
                : []),
              ...(teams.data ?? []).map((team) => ({
                label: `Assign to ${team.name} (team)`,
                onSelect: () => void assignSelected(`team:${team.id}`, team.name),
              })),
              { label: 'Unassign', onSelect: () => void assignSelected(null, '') },
            ]}
          />
          {!allMatching && selectedIssues.length >= 2 && (
            <button type="button" class="btn btn-small" disabled={busy !== null} onClick={() => setConfirmMerge(true)}>
              Merge
            </button>
          )}
          {allSelected && !allMatching && total > rows.length && (
            <button type="button" class="btn btn-small btn-link" onClick={() => setAllMatching(true)}>
              Select all {estimated ? 'about ' : ''}
              {total.toLocaleString()} matching this search
            </button>
          )}
          <button type="button" class="btn btn-small btn-link" onClick={() => selectPage(false)}>
            Clear selection
          </button>
          {confirmMerge && survivor && (
            <div class="merge-confirm" role="alertdialog" aria-label="Confirm merge">
              <span>
                Merge {plural(selectedIssues.length - 1, 'issue')} into <strong>{survivor.short_id}</strong> (the one with the most events)? Their events
                and later ones of their groups go to it. This cannot be undone.
              </span>
              <button type="button" class="btn btn-small btn-danger" disabled={busy !== null} onClick={() => void merge()}>
                {busy === 'merge' ? 'Merging…' : `Merge into ${survivor.short_id}`}
              </button>
              <button type="button" class="btn btn-small" onClick={() => setConfirmMerge(false)}>
                Cancel
              </button>
            </div>
          )}
        </div>
      )}
      <ErrorMessage error={actionError} />
      {notice && (
        <div class="alert alert-success" role="status">
          {notice}
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
        <div class={issues.loading ? 'table-wrap is-loading' : 'table-wrap'}>
          <table class={triage ? 'issues-table' : 'issues-table no-select'}>
            <thead>
              <tr>
                {triage && (
                  <th class="col-check">
                    <input type="checkbox" aria-label="Select all issues on this page" checked={allSelected} onChange={() => selectPage(!allSelected)} />
                  </th>
                )}
                <th>Issue</th>
                <th class="col-trend">24 hours</th>
                <th class="col-num">Events</th>
                <th class="col-users" title="Distinct users affected">
                  Users
                </th>
                <th class="col-time">First seen</th>
                <th class="col-time">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((issue) => (
                <tr key={issue.id} class={selected.has(issue.id) ? 'selected' : undefined}>
                  {triage && (
                    <td class="col-check">
                      <input type="checkbox" aria-label={`Select ${issue.short_id}`} checked={selected.has(issue.id)} onChange={() => toggle(issue.id)} />
                    </td>
                  )}
                  <td class="col-issue">
                    <div class="issue-cell">
                      <LevelMarker level={issue.level} />
                      <div class="issue-main">
                        <a
                          href={`/issues/${issue.id}`}
                          class="issue-link clamp-2"
                          title={issueTitle(issue)}
                          onClick={(event) => rememberReturnPoint(issue.id, event.currentTarget)}
                        >
                          <span class="short-id">{issue.short_id}</span>
                          <span class="issue-title">
                            <strong>{issue.type || 'Message'}</strong>
                            {issue.message ? (
                              <>
                                : <bdi>{issue.message}</bdi>
                              </>
                            ) : (
                              ''
                            )}
                          </span>
                        </a>
                        <div class="issue-sub">
                          {issue.state !== 'open' && <StateBadge state={issue.state} />}
                          {(issue.regression_count ?? 0) > 0 && issue.state === 'open' && <Badge kind="regressed">regressed</Badge>}
                          {issue.assignee && <AssigneeTag assignee={issue.assignee} />}
                          {issue.culprit && <span class="culprit mono">{issue.culprit}</span>}
                        </div>
                      </div>
                    </div>
                  </td>
                  <td class="col-trend" data-label="24 hours">
                    {issue.stats_24h && (
                      <Sparkline
                        counts={issue.stats_24h}
                        label={`${plural(
                          issue.stats_24h.reduce((sum, count) => sum + count, 0),
                          'event',
                        )} in the last 24 hours`}
                      />
                    )}
                  </td>
                  <td class="col-num" data-label="Events">
                    {issue.event_count.toLocaleString()}
                  </td>
                  <td class="col-users" data-label="Users">
                    {typeof issue.user_count === 'number' ? issue.user_count.toLocaleString() : '—'}
                  </td>
                  <td class="col-time" data-label="First seen">
                    <RelTime value={issue.first_seen} />
                  </td>
                  <td class="col-time" data-label="Last seen">
                    <RelTime value={issue.last_seen} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {shown && (params.page > 1 || shown.next_cursor) && (
        <nav class="pager" aria-label="Pagination">
          <button type="button" class="btn btn-small" disabled={params.page === 1} onClick={() => go({ page: 1 })}>
            « First
          </button>
          <button
            type="button"
            class="btn btn-small"
            disabled={params.page === 1}
            onClick={() => ((params.page - 2) * PAGE_SIZE > MAX_OFFSET ? window.history.back() : go({ page: params.page - 1 }))}
          >
            ← Previous
          </button>
          <form
            class="page-jump"
            onSubmit={(event) => {
              event.preventDefault();
              const target = Math.floor(Number(jump));
              if (target >= 1) go({ page: Math.min(target, lastJumpable) });
            }}
          >
            <label>
              Page{' '}
              <input
                name="page"
                type="number"
                min={1}
                max={lastJumpable}
                inputMode="numeric"
                value={jump || String(params.page)}
                onInput={(event) => setJump(event.currentTarget.value)}
                aria-label={`Page number, 1 to ${lastJumpable}`}
              />
            </label>
            <span class="muted small">
              of {estimated ? 'about ' : ''}
              {pageCount.toLocaleString()}
            </span>
            <button type="submit" class="btn btn-small">
              Go
            </button>
          </form>
          <button
            type="button"
            class="btn btn-small"
            disabled={!shown.next_cursor}
            onClick={() =>
              params.page * PAGE_SIZE > MAX_OFFSET
                ? go({ page: params.page + 1, cursor: issues.data?.next_cursor ?? '' })
                : go({ page: params.page + 1 })
            }
          >
            Next →
          </button>
          {!estimated && (
            <button type="button" class="btn btn-small" disabled={params.page >= lastJumpable} onClick={() => go({ page: lastJumpable })}>
              Last »
            </button>
          )}
        </nav>
      )}
    </>
  );
}
