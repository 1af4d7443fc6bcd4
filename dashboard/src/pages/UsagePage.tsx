import { useState } from 'preact/hooks';
import type { components } from '../api-schema';
import { call, client, StatsPeriod } from '../api';
import { Empty, ErrorMessage, Loading, ProjectLoadError, useAsync, useTitle } from '../components';
import { PeriodSwitch, periodLabel } from './EventChart';
import { QuotaRefusalBanner } from './QuotaRefusalBanner';
import { ProjectHeader, useProject } from './ProjectHeader';
import './usage.css';

type Outcomes = components['schemas']['OutcomesView'];
type Bucket = Outcomes['series'][number];
type DroppedOutcome = Exclude<Outcomes['totals'][number]['outcome'], 'accepted'>;

const OUTCOME_LABELS: Record<Outcomes['totals'][number]['outcome'], string> = {
  accepted: 'Accepted',
  filtered: 'Filtered',
  rate_limited: 'Rate limited',
  invalid: 'Invalid',
  client_discard: 'Discarded by the SDK',
  unsupported: 'Not stored (unsupported)',
};

const DROPPED: DroppedOutcome[] = ['filtered', 'rate_limited', 'invalid', 'client_discard', 'unsupported'];

const dropped = (bucket: Bucket) => DROPPED.reduce((sum, outcome) => sum + bucket[outcome], 0);

function bucketName(start: string, interval: Outcomes['interval']): string {
  const date = new Date(start);
  return interval === '1h'
    ? date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' });
}

function share(part: number, whole: number): string {
  if (whole === 0) return '–';
  const percent = (part / whole) * 100;
  return `${percent > 0 && percent < 0.1 ? '<0.1' : percent.toFixed(percent < 10 ? 1 : 0)} %`;
}

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
          themselves (their client reports). Drops show within a minute.
        </p>
        <ErrorMessage error={outcomes.error} onRetry={outcomes.reload} />
        {!data && outcomes.loading && <Loading label="Loading usage…" />}
        {data && <UsageSummary data={data} />}
      </section>
      {data && <DropReasons data={data} />}
    </>
  );
}

function UsageSummary({ data }: { data: Outcomes }) {
  const total = data.accepted + data.dropped;
  const max = Math.max(1, ...data.series.map((bucket) => bucket.accepted + dropped(bucket)));
  const per = data.interval === '1h' ? 'per hour' : 'per UTC day';
  return (
    <>
      <dl class="usage-figures">
        {(['accepted', 'dropped'] as const).map((kind) => (
          <div key={kind} class={`usage-figure ${kind}`}>
            <dt>{kind === 'accepted' ? 'Accepted' : 'Dropped'}</dt>
            <dd>
              <strong>{data[kind].toLocaleString()}</strong> <span class="muted small">{share(data[kind], total)}</span>
            </dd>
          </div>
        ))}
      </dl>
      <figure class="chart usage-chart">
        <figcaption class="usage-legend small">
          <span class="key accepted" aria-hidden="true" /> accepted <span class="key dropped" aria-hidden="true" /> dropped
          <span class="muted"> · {per}</span>
        </figcaption>
        <div
          class={data.series.length > 40 ? 'chart-bars dense' : 'chart-bars'}
          role="img"
          aria-label={`${data.accepted.toLocaleString()} accepted and ${data.dropped.toLocaleString()} dropped, ${per}`}
        >
          {data.series.map((bucket) => {
            const lost = dropped(bucket);
            return (
              <div
                key={bucket.start}
                class="chart-col usage-col"
                title={`${bucketName(bucket.start, data.interval)}: ${bucket.accepted.toLocaleString()} accepted, ${lost.toLocaleString()} dropped`}
                data-accepted={bucket.accepted}
                data-dropped={lost}
              >
                <div class="usage-bar dropped" style={{ height: `${((lost / max) * 100).toFixed(2)}%` }} />
                <div class="usage-bar accepted" style={{ height: `${((bucket.accepted / max) * 100).toFixed(2)}%` }} />
              </div>
            );
          })}
        </div>
        {data.series.length > 0 && (
          <div class="chart-labels" aria-hidden="true">
            <span>{bucketName(data.series[0].start, data.interval)}</span>
            <span>{data.interval === '1h' ? 'now' : 'today'}</span>
          </div>
        )}
      </figure>
    </>
  );
}

function DropReasons({ data }: { data: Outcomes }) {
  const rows = data.totals.filter((row) => row.outcome !== 'accepted');
  return (
    <section class="card" aria-labelledby="reasons-title">
      <h2 id="reasons-title">Dropped, by reason</h2>
      {rows.length === 0 ? (
        <Empty title="Nothing dropped">Everything the SDKs sent in this period was accepted.</Empty>
      ) : (
        <table class="usage-table">
          <thead>
            <tr>
              <th>Outcome</th>
              <th class="usage-category-column">Category</th>
              <th>Reason</th>
              <th class="num">Quantity</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.outcome}:${row.category}:${row.reason}`}>
                <td>
                  {OUTCOME_LABELS[row.outcome]}
                  <span class="usage-category-inline muted small"> · {row.category}</span>
                </td>
                <td class="usage-category-column">{row.category}</td>
                <td>
                  <code>{row.reason}</code>
                </td>
                <td class="num">{row.quantity.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
