import type { ComponentChildren } from 'preact';
import { call, client } from '../api';
import { DeadEnd, Empty, ErrorMessage, Loading, ProjectLoadError, RelTime, useAsync, useTitle } from '../components';
import { DataTable } from '../lists';
import { loadReleaseHealth } from '../release-health-types';
import { plural } from '../util';
import { periodLabel } from './EventChart';
import { IssueTable } from './IssueTable';
import { useProject } from './ProjectHeader';
import { Adoption, Count, CrashFree, HealthPickers, releaseIssuesUrl, useEnvironments, useHealthScope } from './ReleaseFigures';
import { ReleaseHealthChart } from './ReleaseHealthChart';
import './releases.css';

/** Issues a release page lists of each kind; the rest are one click away in the issue list. */
const ISSUES_SHOWN = 10;
const NO_SELECTION = new Set<number>();

/** One release: its health over a period, its figures, its deploys, the issues it opened and those it resolved. */
export function ReleasePage({ projectId, version }: { projectId: number; version: string }) {
  const project = useProject(projectId);
  useTitle(`${version}${project.data ? ` · ${project.data.name}` : ''}`);
  const scope = useHealthScope();
  const { period, environment } = scope;
  const environments = useEnvironments(projectId);
  // Its events and new issues follow the environment, as the health figures do.
  const release = useAsync(
    () =>
      call(
        client.GET('/api/projects/{projectId}/releases/{version}', {
          params: { path: { projectId, version }, query: { environment: environment || undefined } },
        }),
      ),
    [projectId, version, environment],
  );
  // Without release health on the server (a 404), the chart and the figures say there is none.
  const health = useAsync(
    () => loadReleaseHealth(projectId, version, period, environment).catch(() => undefined),
    [projectId, version, period, environment],
  );

  if (project.error) return <ProjectLoadError project={project} />;
  if (release.status === 404) {
    return (
      <DeadEnd title="Release not found" links={[{ href: `/projects/${projectId}/releases`, label: 'Back to releases' }]}>
        This project has no release {version}: no event named it, and no one created it.
      </DeadEnd>
    );
  }
  if (release.error) return <ErrorMessage error={release.error} onRetry={release.reload} status={release.status} />;
  if (!project.data || !release.data) return <Loading label="Loading release…" />;
  const data = release.data;
  const totals = health.data?.totals;

  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <span class="crumb-path">
          <a href="/">Projects</a> <span aria-hidden="true">/</span> <a href={`/projects/${projectId}/issues`}>{project.data.name}</a>{' '}
          <span aria-hidden="true">/</span> <a href={`/projects/${projectId}/releases`}>Releases</a>
        </span>
      </nav>
      <header class="card release-header">
        <h1 class="release-title mono">{data.version}</h1>
        <p class="muted small release-dates">
          First event <RelTime value={data.first_event} /> · last event <RelTime value={data.last_event} />
          {data.date_released && (
            <>
              {' '}
              · released <RelTime value={data.date_released} />
            </>
          )}
        </p>
        <dl class="health-figures release-figures">
          <Figure label="Crash-free sessions">
            <CrashFree value={totals?.crash_free_sessions} />
          </Figure>
          <Figure label="Crash-free users">
            <CrashFree value={totals?.crash_free_users} />
          </Figure>
          <Figure label="Adoption (24 h)">
            <Adoption adoption={totals?.adoption} />
          </Figure>
          <Figure label="Sessions"><Count value={totals?.sessions} /></Figure>
          <Figure label="Users"><Count value={totals?.users} /></Figure>
          <Figure label="Crashed sessions"><Count value={totals?.crashed_sessions} /></Figure>
          <Figure label="Events">{data.event_count.toLocaleString()}</Figure>
          <Figure label="New issues">{data.new_issues.toLocaleString()}</Figure>
        </dl>
      </header>

      <section class="card" aria-labelledby="health-title">
        <div class="releases-head">
          <h2 id="health-title">Health · {periodLabel(period)}</h2>
          <HealthPickers scope={scope} environments={environments.data} />
        </div>
        {health.loading && !health.data ? <Loading label="Loading health…" /> : <ReleaseHealthChart health={health.data} />}
      </section>

      <ReleaseIssues projectId={projectId} version={version} kind="first_release" />
      <ReleaseIssues projectId={projectId} version={version} kind="resolved_in" />

      <section class="card" aria-labelledby="deploys-title">
        <h2 id="deploys-title">Deploys</h2>
        {data.deploys.length === 0 ? (
          <Empty title="No deploys recorded">
            <code>sentry-cli releases deploys {data.version} new -e production</code> records one.
          </Empty>
        ) : (
          <DataTable class="deploys-table" wrapClass="flat" columns={['Environment', 'Name', 'Finished', 'Started']}>
            {data.deploys.map((deploy, index) => (
              <tr key={`${deploy.date_finished}-${index}`}>
                <td data-label="Environment">
                  <strong>{deploy.environment}</strong>
                </td>
                <td data-label="Name">
                  {deploy.url ? (
                    <a href={deploy.url} target="_blank" rel="noopener noreferrer">
                      {deploy.name ?? deploy.url}
                    </a>
                  ) : (
                    (deploy.name ?? <span class="muted">—</span>)
                  )}
                </td>
                <td data-label="Finished">
                  <RelTime value={deploy.date_finished} />
                </td>
                <td data-label="Started">
                  <RelTime value={deploy.date_started} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </>
  );
}

function Figure({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="health-figure">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

const ISSUE_LISTS = {
  first_release: { title: 'Issues first seen in this release', empty: 'No issue started in this release', hint: null },
  resolved_in: {
    title: 'Issues resolved in this release',
    empty: 'No issue resolved in this release',
    hint: 'An issue resolved "in the next release" is listed here once this release follows.',
  },
} as const;

/** The issues of a release of one kind, the latest seen first, from the issue search (`first_release:`, `resolved_in:`). */
function ReleaseIssues({ projectId, version, kind }: { projectId: number; version: string; kind: keyof typeof ISSUE_LISTS }) {
  const url = releaseIssuesUrl(projectId, kind, version);
  const query = new URLSearchParams(url.slice(url.indexOf('?'))).get('query') ?? '';
  const issues = useAsync(
    () =>
      call(client.GET('/api/projects/{projectId}/issues', { params: { path: { projectId }, query: { query, limit: ISSUES_SHOWN, stats: '24h' } } })),
    [projectId, query],
  );
  const { title, empty, hint } = ISSUE_LISTS[kind];
  const id = `${kind}-title`;
  const total = issues.data?.total ?? 0;
  return (
    <section class="card release-issues" aria-labelledby={id}>
      <div class="section-head">
        <h2 id={id}>
          {title}
          {issues.data && <span class="muted count-note"> · {total.toLocaleString()}</span>}
        </h2>
        {total > 0 && <a href={url}>{total > ISSUES_SHOWN ? `All ${plural(total, 'issue')} in the issue list` : 'Open in the issue list'}</a>}
      </div>
      <ErrorMessage error={issues.error} onRetry={issues.reload} status={issues.status} />
      {!issues.data && issues.loading && <Loading label="Loading issues…" />}
      {issues.data && issues.data.data.length === 0 && <Empty title={empty}>{hint}</Empty>}
      {issues.data && issues.data.data.length > 0 && (
        <IssueTable rows={issues.data.data} triage={false} selected={NO_SELECTION} allSelected={false} loading={issues.loading} onToggle={noop} onSelectPage={noop} />
      )}
    </section>
  );
}

const noop = () => undefined;
