import { useEffect, useState } from 'preact/hooks';
import { api, errorMessage, Issue, IssueState, Page, qs } from '../api';
import { Badge, Empty, ErrorMessage, Loading, RelTime, useAsync, useTitle } from '../components';
import { navigate, useLocation } from '../router';
import { plural } from '../util';
import { DsnSetup } from './DsnSetup';
import { EventChart } from './EventChart';
import { ProjectHeader, useProject } from './ProjectHeader';

const PAGE_SIZE = 50;
const FILTERS: { value: '' | IssueState; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'open', label: 'Open' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'muted', label: 'Muted' },
];

export const STATE_ACTIONS: { state: IssueState; label: string; busy: string }[] = [
  { state: 'resolved', label: 'Resolve', busy: 'Resolving…' },
  { state: 'muted', label: 'Mute', busy: 'Muting…' },
  { state: 'open', label: 'Reopen', busy: 'Reopening…' },
];

export function issueTitle(issue: Pick<Issue, 'type' | 'message'>): string {
  if (issue.type && issue.message) return `${issue.type}: ${issue.message}`;
  return issue.type || issue.message || '(no message)';
}

export function StateBadge({ state }: { state: string }) {
  return <Badge kind={state}>{state}</Badge>;
}

export function IssuesPage({ projectId }: { projectId: number }) {
  const location = useLocation();
  const stateFilter = (location.query.get('state') ?? '') as '' | IssueState;
  const cursor = location.query.get('cursor') ?? '';
  const project = useProject(projectId);
  useTitle(project.data ? `${project.data.name} issues` : 'Issues');
  const issues = useAsync(
    () => api.get<Page<Issue>>(`/api/projects/${projectId}/issues${qs({ state: stateFilter, limit: PAGE_SIZE, cursor })}`),
    [projectId, stateFilter, cursor],
  );
  // Cursors of earlier pages, so "Previous" works without the API paging backwards.
  const [history, setHistory] = useState<string[]>([]);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [chartReload, setChartReload] = useState(0);

  useEffect(() => setSelected(new Set()), [projectId, stateFilter, cursor]);
  useEffect(() => setHistory([]), [projectId, stateFilter]);

  const go = (params: { state?: string; cursor?: string }) =>
    navigate(`/projects/${projectId}/issues${qs({ state: params.state ?? stateFilter, cursor: params.cursor })}`);

  const rows = issues.data?.data ?? [];
  const allSelected = rows.length > 0 && rows.every((issue) => selected.has(issue.id));

  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };

  const setState = async (ids: number[], state: IssueState, label: string) => {
    setBusy(label);
    setActionError(null);
    setNotice(null);
    const results = await Promise.allSettled(ids.map((id) => api.patch<Issue>(`/api/issues/${id}`, { state })));
    const failed = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed.length > 0) {
      setActionError(`${failed.length} of ${ids.length} could not be updated: ${errorMessage(failed[0].reason)}`);
    } else {
      setNotice(`${plural(ids.length, 'issue')} marked ${state}.`);
    }
    setSelected(new Set());
    setBusy(null);
    issues.reload();
  };

  if (project.error) return <ErrorMessage error={project.error} onRetry={project.reload} />;
  if (!project.data) return <Loading label="Loading project…" />;
  const noIssuesAtAll = !stateFilter && !cursor && issues.data !== undefined && rows.length === 0;

  return (
    <>
      <ProjectHeader project={project.data} active="issues" />
      <details class="card setup-card" open={noIssuesAtAll}>
        <summary>DSN and SDK setup</summary>
        <DsnSetup project={project.data} />
      </details>
      {!noIssuesAtAll && (
        <section class="card" aria-label="Events of this project">
          <EventChart path={`/api/projects/${projectId}/stats`} storageKey="chart-period:project" reloadKey={chartReload} />
        </section>
      )}

      <div class="toolbar">
        <div class="segmented" role="group" aria-label="Filter by state">
          {FILTERS.map((filter) => (
            <button
              key={filter.value}
              type="button"
              class={stateFilter === filter.value ? 'seg active' : 'seg'}
              aria-pressed={stateFilter === filter.value}
              onClick={() => {
                setHistory([]);
                go({ state: filter.value, cursor: '' });
              }}
            >
              {filter.label}
            </button>
          ))}
        </div>
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

      {selected.size > 0 && (
        <div class="bulk-bar" role="region" aria-label="Bulk actions">
          <strong>{selected.size} selected</strong>
          {STATE_ACTIONS.map((action) => (
            <button
              key={action.state}
              type="button"
              class="btn btn-small"
              disabled={busy !== null}
              onClick={() => void setState([...selected], action.state, action.label)}
            >
              {busy === action.label ? action.busy : action.label}
            </button>
          ))}
          <button type="button" class="btn btn-small btn-link" onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        </div>
      )}
      <ErrorMessage error={actionError} />
      {notice && (
        <div class="alert alert-success" role="status">
          {notice}
        </div>
      )}
      <ErrorMessage error={issues.error} onRetry={issues.reload} />
      {issues.loading && !issues.data && <Loading label="Loading issues…" />}

      {issues.data && rows.length === 0 && (
        noIssuesAtAll ? (
          <Empty title="No issues yet — send your first error with the DSN above.">
            Issues appear here a few seconds after your application reports its first error.
          </Empty>
        ) : (
          <Empty title={stateFilter ? `No ${stateFilter} issues.` : 'No more issues.'} />
        )
      )}

      {rows.length > 0 && (
        <div class={issues.loading ? 'table-wrap is-loading' : 'table-wrap'}>
          <table class="issues-table">
            <thead>
              <tr>
                <th class="col-check">
                  <input
                    type="checkbox"
                    aria-label="Select all issues on this page"
                    checked={allSelected}
                    onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((issue) => issue.id)))}
                  />
                </th>
                <th>Issue</th>
                <th class="col-state">State</th>
                <th class="col-num">Events</th>
                <th class="col-users" title="Distinct users affected">
                  Users
                </th>
                <th class="col-time">First seen</th>
                <th class="col-time">Last seen</th>
                <th class="col-actions">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((issue) => (
                <tr key={issue.id} class={selected.has(issue.id) ? 'selected' : undefined}>
                  <td class="col-check">
                    <input
                      type="checkbox"
                      aria-label={`Select ${issue.short_id}`}
                      checked={selected.has(issue.id)}
                      onChange={() => toggle(issue.id)}
                    />
                  </td>
                  <td class="col-issue">
                    <a href={`/issues/${issue.id}`} class="issue-link">
                      <span class="short-id">{issue.short_id}</span>
                      <span class="issue-title">
                        <strong>{issue.type || 'Message'}</strong>
                        {issue.message ? `: ${issue.message}` : ''}
                      </span>
                    </a>
                    {issue.culprit && <div class="culprit mono">{issue.culprit}</div>}
                  </td>
                  <td class="col-state" data-label="State">
                    <StateBadge state={issue.state} />
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
                  <td class="col-actions">
                    {STATE_ACTIONS.filter((action) => action.state !== issue.state).map((action) => (
                      <button
                        key={action.state}
                        type="button"
                        class="btn btn-tiny"
                        disabled={busy !== null}
                        aria-label={`${action.label} ${issue.short_id}`}
                        onClick={() => void setState([issue.id], action.state, `${action.label}-${issue.id}`)}
                      >
                        {action.label}
                      </button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {(history.length > 0 || issues.data?.next_cursor) && (
        <nav class="pager" aria-label="Pagination">
          <button
            type="button"
            class="btn btn-small"
            disabled={history.length === 0 && !cursor}
            onClick={() => {
              const previous = history.slice(0, -1);
              const target = history[history.length - 1] ?? '';
              setHistory(previous);
              go({ cursor: target });
            }}
          >
            ← Previous
          </button>
          <span class="muted small">Page {history.length + 1}</span>
          <button
            type="button"
            class="btn btn-small"
            disabled={!issues.data?.next_cursor}
            onClick={() => {
              setHistory([...history, cursor]);
              go({ cursor: issues.data?.next_cursor ?? '' });
            }}
          >
            Next →
          </button>
        </nav>
      )}
    </>
  );
}
