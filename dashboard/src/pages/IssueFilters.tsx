import type { Team } from '../api';
import { filterValue, setFilter } from '../search-query';
import { IssueSearchBox } from './IssueSearchBox';

/** What the list shows when the URL names no search. */
export const DEFAULT_QUERY = 'is:unresolved';

/** The issue list's address: what it searches, how it sorts, which page it is on. */
export interface ListParams {
  query: string;
  environment: string;
  sort: string;
  page: number;
  /** Only for pages past the API's offset bound (IssuePager), which are reached by cursor. */
  cursor: string;
}

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

/** A choice of the filter row: the known values, and the current one even when it is not among them. */
function withCurrent(known: string[], current: string): string[] {
  return [...new Set([...known, ...(current ? [current] : [])])];
}

/** The search box and the pickers above the issue list; each choice goes into the search or the address. */
export function IssueFilters({
  projectId,
  params,
  go,
  environments,
  releases,
  teams,
}: {
  projectId: number;
  params: ListParams;
  go: (change: Partial<ListParams>) => void;
  environments: string[];
  releases: string[];
  /** The teams that see the project: "assigned to" offers them. */
  teams: Team[];
}) {
  const stateView = filterValue(params.query, 'is');
  const release = filterValue(params.query, 'release') ?? '';
  const assigned = filterValue(params.query, 'assigned') ?? '';
  const assignedOptions = [{ value: 'me', label: 'Me' }, ...teams.map((team) => ({ value: `#${team.slug}`, label: `${team.name} (team)` }))];
  const filterBy = (key: 'release' | 'assigned', value: string) => go({ query: setFilter(params.query, key, value || null) });

  return (
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
            {withCurrent(environments, params.environment).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label class="picker">
          <span>Release</span>
          <select name="release" value={release} onChange={(event) => filterBy('release', event.currentTarget.value)}>
            <option value="">All releases</option>
            {withCurrent(releases, release).map((version) => (
              <option key={version} value={version}>
                {version}
              </option>
            ))}
          </select>
        </label>
        <label class="picker">
          <span>Assigned to</span>
          <select name="assigned" value={assigned} onChange={(event) => filterBy('assigned', event.currentTarget.value)}>
            <option value="">Anyone or nobody</option>
            {assignedOptions.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
            {assigned && !assignedOptions.some((option) => option.value === assigned) && <option value={assigned}>{assigned}</option>}
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
  );
}
