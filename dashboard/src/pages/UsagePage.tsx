import { useState } from 'preact/hooks';
import { call, client, StatsPeriod } from '../api';
import { ErrorMessage, Loading, ProjectLoadError, useAsync, useTitle } from '../components';
import { PeriodSwitch, periodLabel } from './EventChart';
import { QuotaRefusalBanner } from './QuotaRefusalBanner';
import { DropReasons, ErrorUsage } from './UsageCategories';
import { ProjectHeader, useProject } from './ProjectHeader';
import './usage.css';

/** Accepted errors against what was dropped, and why, for the project over a chosen period. */
export function UsagePage({ projectId }: { projectId: number }) {
  const project = useProject(projectId);
  useTitle(project.data ? `${project.data.name} usage` : 'Usage');
  const [period, setPeriod] = useState<StatsPeriod>('24h');
  const outcomes = useAsync(
    () => call(client.GET('/api/projects/{id}/outcomes', { params: { path: { id: projectId }, query: { period } } })),
    [projectId, period],
  );

  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;
  const data = outcomes.data;

  return (
    <>
      <ProjectHeader project={project.data} active="usage" />
      <QuotaRefusalBanner projectId={projectId} />
      <section class="card usage" aria-labelledby="usage-title">
        <div class="usage-head">
          <h2 id="usage-title">Usage · {periodLabel(period)}</h2>
          <PeriodSwitch period={period} onChoose={setPeriod} label="Period" />
        </div>
        <p class="muted small">
          What the project’s SDKs sent: errors accepted and stored, and what was dropped, by the server or by the SDKs
          themselves (their client reports), each kind of data on its own. Drops show within a minute.
        </p>
        <ErrorMessage error={outcomes.error} onRetry={outcomes.reload} />
        {!data && outcomes.loading && <Loading label="Loading usage…" />}
        {data && <ErrorUsage data={data} />}
      </section>
      {data && <DropReasons data={data} />}
    </>
  );
}
