import { useEffect } from 'preact/hooks';
import { call, client, Release, StatsPeriod } from '../api';
import { Empty, ErrorMessage, Loading, ProjectLoadError, RelTime, Sparkline, useAsync, useTitle } from '../components';
import { DataTable, useCursorPages } from '../lists';
import { HealthFigures, loadProjectReleaseHealth, ProjectReleaseHealth } from '../release-health-types';
import { plural } from '../util';
import { periodLabel } from './EventChart';
import { Adoption, Count, CrashFree, HealthPickers, ReleaseLink, releaseIssuesUrl, useEnvironments, useHealthScope } from './ReleaseFigures';
import { ProjectHeader, useProject } from './ProjectHeader';
import './releases.css';

const RELEASES_PAGE = 50;

/** A project's releases with their events, new issues and health: crash-free rates, adoption, a trend of sessions. */
export function ReleasesPage({ projectId }: { projectId: number }) {
  const project = useProject(projectId);
  useTitle(project.data ? `${project.data.name} releases` : 'Releases');
  const scope = useHealthScope();
  const { period, environment } = scope;
  const environments = useEnvironments(projectId);
  // Events and new issues follow the environment, as the health figures do.
  const releases = useCursorPages(
    (cursor) =>
      call(
        client.GET('/api/projects/{projectId}/releases', {
          params: { path: { projectId }, query: { limit: RELEASES_PAGE, cursor, environment: environment || undefined } },
        }),
      ),
    true,
  );
  useEffect(() => releases.clear(), [projectId]);
  useEffect(() => {
    void releases.load(null);
  }, [projectId, environment]);
  // Without release health on the server (a 404), the figures show "—" and nothing more is said.
  const health = useAsync(() => loadProjectReleaseHealth(projectId, period, environment).catch(() => undefined), [projectId, period, environment]);
  const byVersion = new Map((health.data?.releases ?? []).map((row) => [row.version, row]));

  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;

  return (
    <>
      <ProjectHeader project={project.data} active="releases" />
      <section class="card releases-card" aria-labelledby="releases-title">
        <div class="releases-head">
          <h2 id="releases-title">Releases · {periodLabel(period)}</h2>
          <HealthPickers scope={scope} environments={environments.data} />
        </div>
        <ProjectHealthSummary health={health.data} />
        <ErrorMessage error={releases.error} onRetry={() => void releases.load(null)} />
        {releases.items.length === 0 && releases.loading && <Loading label="Loading releases…" />}
        {releases.items.length === 0 && !releases.loading && !releases.error && (
          <Empty title="No releases yet">
            Releases appear when events name one: set <code>release</code> in the SDK's <code>init</code> (see the setup on the Issues tab), or
            create them with <code>sentry-cli releases new</code>.
          </Empty>
        )}
        {releases.items.length > 0 && (
          <DataTable
            class="releases-table"
            wrapClass={`flat${health.loading ? ' is-loading' : ''}`}
            columns={[
              'Release',
              { label: 'Sessions trend', class: 'col-trend' },
              { label: 'Crash-free sessions', class: 'num' },
              { label: 'Crash-free users', class: 'num' },
              { label: 'Adoption (24 h)', class: 'col-adoption', title: "Share of the project's sessions in the last 24 hours, whatever the period" },
              { label: 'Sessions', class: 'num' },
              { label: 'Events', class: 'num' },
              { label: 'New issues', class: 'num' },
              { label: 'First seen', class: 'col-time' },
              { label: 'Last seen', class: 'col-time' },
            ]}
          >
            {releases.items.map((release) => (
              <ReleaseRow key={release.version} projectId={projectId} release={release} health={byVersion.get(release.version)} period={period} />
            ))}
          </DataTable>
        )}
        {releases.next && (
          <button type="button" class="btn btn-small btn-block" disabled={releases.loading} onClick={() => void releases.load(releases.next)}>
            {releases.loading ? 'Loading…' : 'Show more releases'}
          </button>
        )}
      </section>
    </>
  );
}

function ReleaseRow({
  projectId,
  release,
  health,
  period,
}: {
  projectId: number;
  release: Release;
  health: (HealthFigures & { sparkline?: number[] }) | undefined;
  period: StatsPeriod;
}) {
  const sessionsInPeriod = health?.sparkline?.reduce((sum, value) => sum + value, 0);
  return (
    <tr>
      <td class="col-release" data-label="Release">
        <ReleaseLink projectId={projectId} version={release.version} />
        {release.date_released && (
          <span class="muted small release-finalized">
            released <RelTime value={release.date_released} />
          </span>
        )}
      </td>
      <td class="col-trend" data-label="Sessions trend">
        {health?.sparkline && health.sparkline.length > 0 ? (
          <Sparkline counts={health.sparkline} label={`${plural(sessionsInPeriod ?? 0, 'session')} in the ${periodLabel(period)}`} />
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <td class="num" data-label="Crash-free sessions">
        <CrashFree value={health?.crash_free_sessions} />
      </td>
      <td class="num" data-label="Crash-free users">
        <CrashFree value={health?.crash_free_users} />
      </td>
      <td class="col-adoption" data-label="Adoption (24 h)">
        <Adoption adoption={health?.adoption} />
      </td>
      <td class="num" data-label="Sessions">
        <Count value={health?.sessions} />
      </td>
      <td class="num" data-label="Events">
        {release.event_count.toLocaleString()}
      </td>
      <td class="num" data-label="New issues">
        {release.new_issues > 0 ? (
          <a href={releaseIssuesUrl(projectId, 'first_release', release.version)}>{release.new_issues.toLocaleString()}</a>
        ) : (
          '0'
        )}
      </td>
      <td class="col-time" data-label="First seen">
        <RelTime value={release.first_event} />
      </td>
      <td class="col-time" data-label="Last seen">
        <RelTime value={release.last_event} />
      </td>
    </tr>
  );
}

/** The project's own figures over the period, across its releases. */
function ProjectHealthSummary({ health }: { health: ProjectReleaseHealth | undefined }) {
  const totals = health?.totals;
  return (
    <>
    <dl class="health-figures" aria-label="The project's release health">
      <div class="health-figure">
        <dt>Crash-free sessions</dt>
        <dd>
          <CrashFree value={totals?.crash_free_sessions} />
        </dd>
      </div>
      <div class="health-figure">
        <dt>Crash-free users</dt>
        <dd>
          <CrashFree value={totals?.crash_free_users} />
        </dd>
      </div>
      <div class="health-figure">
        <dt>Sessions</dt>
        <dd><Count value={totals?.sessions} /></dd>
      </div>
      <div class="health-figure">
        <dt>Users</dt>
        <dd><Count value={totals?.users} /></dd>
      </div>
    </dl>
    {!totals && (
      <p class="muted small health-note">
        Crash-free rates and adoption come from the sessions the SDKs send (on by default in <code>@sentry/browser</code> and{' '}
        <code>@sentry/node</code>); none were counted for this period.
      </p>
    )}
    </>
  );
}
