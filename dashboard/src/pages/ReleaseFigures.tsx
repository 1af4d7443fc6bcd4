import type { ComponentChildren } from 'preact';
import type { Environment } from '../api';
import { call, client, qs, StatsPeriod } from '../api';
import { setFilter } from '../search-query';
import { useAsync } from '../components';
import type { HealthFigures } from '../release-health-types';
import { navigate, useLocation } from '../router';
import { DEFAULT_PERIOD, PeriodSwitch, PERIODS } from './EventChart';

/** The dashboard's page of a release. */
export function releaseUrl(projectId: number, version: string): string {
  return `/projects/${projectId}/releases/${encodeURIComponent(version)}`;
}

/** The issue list searching the issues first seen in a release (`first_release`), or resolved in it. */
export function releaseIssuesUrl(projectId: number, key: 'first_release' | 'resolved_in', version: string): string {
  return `/projects/${projectId}/issues${qs({ query: setFilter('', key, version) })}`;
}

/** A link to a release's page, its version in the code font. */
export function ReleaseLink({ projectId, version, children }: { projectId: number; version: string; children?: ComponentChildren }) {
  return (
    <a href={releaseUrl(projectId, version)} class="release-link mono">
      {children ?? version}
    </a>
  );
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A percent as figures show it ("99.5 %", "100 %"); "—" when the server has no figure. */
export function percent(value: number | null | undefined): string {
  if (!isNumber(value)) return '—';
  if (value >= 100) return '100 %';
  // A rate of 99.95 shown as "100 %" would hide the crashes: never round up to a whole hundred.
  const shown = value >= 99.9 ? Math.floor(value * 100) / 100 : Math.round(value * 10) / 10;
  return `${shown.toLocaleString(undefined, { maximumFractionDigits: 2 })} %`;
}

export function count(value: number | null | undefined): string {
  return isNumber(value) ? value.toLocaleString() : '—';
}

/** A count as a figure or a cell shows it: "—", muted, when the server has none. */
export function Count({ value }: { value: number | null | undefined }) {
  return isNumber(value) ? <>{value.toLocaleString()}</> : <span class="figure-missing">—</span>;
}

/** How a crash-free rate reads at a glance: good, worth a look, bad. */
export function rateTone(value: number | null | undefined): 'good' | 'fair' | 'poor' | 'none' {
  if (!isNumber(value)) return 'none';
  return value >= 99 ? 'good' : value >= 95 ? 'fair' : 'poor';
}

/** A crash-free rate, coloured by how healthy it is. */
export function CrashFree({ value }: { value: number | null | undefined }) {
  return <span class={`crash-free tone-${rateTone(value)}`}>{percent(value)}</span>;
}

/** A release's adoption: its share of the project's sessions (and users) in the last 24 hours, with a bar. */
export function Adoption({ adoption }: { adoption: HealthFigures['adoption'] | undefined }) {
  const sessions = adoption?.sessions;
  if (!isNumber(sessions)) return <span class="figure-missing">—</span>;
  return (
    <span class="adoption" title={`Share of the project's sessions (${percent(sessions)}) and users (${percent(adoption?.users)}) in the last 24 hours`}>
      <span class="adoption-bar" aria-hidden="true">
        <span style={{ width: `${Math.min(100, Math.max(0, sessions)).toFixed(1)}%` }} />
      </span>
      {percent(sessions)}
    </span>
  );
}

/** The project's environments, busiest first (from the rollups). */
export function useEnvironments(projectId: number) {
  return useAsync(
    () => call(client.GET('/api/projects/{id}/environments', { params: { path: { id: projectId } } })).then((list) => list.data),
    [projectId],
  );
}

/** The period and environment of the release pages, kept in the address so that a view can be shared. */
export interface HealthScope {
  period: StatsPeriod;
  environment: string;
  change: (next: { period?: StatsPeriod; environment?: string }) => void;
}

export function useHealthScope(): HealthScope {
  const location = useLocation();
  const asked = location.query.get('period');
  const period = PERIODS.some((option) => option.value === asked) ? (asked as StatsPeriod) : DEFAULT_PERIOD;
  const environment = location.query.get('environment') ?? '';
  const change = (next: { period?: StatsPeriod; environment?: string }) => {
    const chosen = { period: next.period ?? period, environment: next.environment ?? environment };
    navigate(location.path + qs({ period: chosen.period === DEFAULT_PERIOD ? undefined : chosen.period, environment: chosen.environment }), {
      replace: true,
    });
  };
  return { period, environment, change };
}

/** The period switch and the environment picker of the release pages. */
export function HealthPickers({ scope, environments }: { scope: HealthScope; environments: Environment[] | undefined }) {
  const names = (environments ?? []).map((row) => row.name);
  if (scope.environment && !names.includes(scope.environment)) names.push(scope.environment);
  return (
    <div class="health-pickers">
      <PeriodSwitch period={scope.period} onChoose={(period) => scope.change({ period })} label="Period" />
      <label class="picker">
        <span>Environment</span>
        <select name="environment" value={scope.environment} onChange={(event) => scope.change({ environment: event.currentTarget.value })}>
          <option value="">All environments</option>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
