import { useEffect, useState } from 'preact/hooks';
import { call, CheckIn, client, CronEnvironment, CronMonitor } from '../api';
import { BarChart } from '../bar-chart';
import { Empty, ErrorMessage, Loading, RelTime, useAsync, useTitle } from '../components';
import { useCursorPages } from '../lists';
import { navigate } from '../router';
import { plural } from '../util';
import { CronSetup } from './CronSetup';
import { MonitorActions } from './MonitorActions';
import { durationText } from '../monitor-words';
import { MonitorIssueLink, MutedMark, StatusPill, statusWord } from './MonitorStatus';
import { MonitorFrame } from './MonitorFrame';
import './monitors.css';

const CHECK_INS_PAGE = 50;

export function cronMonitorUrl(projectId: number, slug: string): string {
  return `/projects/${projectId}/monitors/cron/${encodeURIComponent(slug)}`;
}

/** One cron monitor: its state per environment, its check-ins and their durations, its setup. */
export function CronMonitorPage({ projectId, slug }: { projectId: number; slug: string }) {
  const monitor = useAsync(
    () => call(client.GET('/api/projects/{id}/monitors/{slug}', { params: { path: { id: projectId, slug } } })),
    [projectId, slug],
  );
  useTitle(monitor.data?.name ?? 'Cron monitor');
  const mute = async (muted: boolean) =>
    monitor.setData(
      await call(
        client.PATCH('/api/projects/{id}/monitors/{slug}', {
          params: { path: { id: projectId, slug } },
          body: { muted },
        }),
      ),
    );
  const remove = async () => {
    await call(client.DELETE('/api/projects/{id}/monitors/{slug}', { params: { path: { id: projectId, slug } } }));
    navigate(`/projects/${projectId}/monitors`);
  };
  return (
    <MonitorFrame projectId={projectId} monitor={monitor} missing={`This project has no cron monitor ${slug}; it may have been deleted.`}>
      {(project, data) =>
        data && (
          <>
            <header class="card">
              <div class="monitor-head">
                <h1>{data.name}</h1>
                <StatusPill status={data.status} />
                <MutedMark muted={data.muted} />
              </div>
              <p class="muted">
                <span class="mono">{data.slug}</span> · {data.schedule_description} ({data.timezone}) · missed {plural(data.checkin_margin, 'minute')}{' '}
                after the expected time · times out after {plural(data.max_runtime, 'minute')}
              </p>
              <CronFigures monitor={data} />
              <MonitorActions
                muted={data.muted}
                editHref={`${cronMonitorUrl(projectId, slug)}/edit`}
                mute={mute}
                remove={remove}
                what="Its check-ins are deleted; its issues stay. A check-in with a monitor_config creates it again."
              />
            </header>
            <CheckIns projectId={projectId} monitor={data} />
            <section class="card" aria-labelledby="setup-title">
              <h2 id="setup-title">Send check-ins</h2>
              <CronSetup project={project} monitor={data} />
            </section>
          </>
        )
      }
    </MonitorFrame>
  );
}

function CronFigures({ monitor }: { monitor: CronMonitor }) {
  if (monitor.environments.length === 0) {
    return (
      <dl class="monitor-figures">
        <div>
          <dt>Next expected</dt>
          <dd>
            <RelTime value={monitor.next_expected_at} />
          </dd>
        </div>
        <div>
          <dt>Last check-in</dt>
          <dd>none yet</dd>
        </div>
      </dl>
    );
  }
  return (
    <dl class="monitor-figures">
      {monitor.environments.map((environment) => (
        <EnvironmentFigure key={environment.environment} environment={environment} />
      ))}
    </dl>
  );
}

function EnvironmentFigure({ environment }: { environment: CronEnvironment }) {
  return (
    <div class="environment-figure">
      <dt>{environment.environment}</dt>
      <dd>
        <StatusPill status={environment.status} small />
        <span class="monitor-sub">
          last <RelTime value={environment.last_check_in_at} /> · next <RelTime value={environment.next_expected_at} />
        </span>
        {environment.consecutive_failures > 0 && <span class="monitor-sub">{plural(environment.consecutive_failures, 'failure')} in a row</span>}
        {environment.issue && <MonitorIssueLink issue={environment.issue} className="monitor-sub" />}
      </dd>
    </div>
  );
}

function shortTime(value: string): string {
  return new Date(value).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

function checkInDetail(checkIn: CheckIn): string {
  const parts: string[] = [];
  if (checkIn.duration_ms !== null) parts.push(`took ${durationText(checkIn.duration_ms)}`);
  if (checkIn.status === 'missed' && checkIn.expected_at) parts.push(`no check-in for the run expected ${shortTime(checkIn.expected_at)}`);
  if (checkIn.status === 'timeout') parts.push('never reported its end');
  if (checkIn.release) parts.push(`release ${checkIn.release}`);
  return parts.join(' · ');
}

/**
 * A monitor's check-ins, latest first, with their durations. On a monitor's issue it opens on the
 * issue's environment and on the failures alone (what counted on the issue), with a switch to all.
 */
export function CheckIns({
  projectId,
  monitor,
  initialEnvironment,
  initialFailuresOnly = false,
}: {
  projectId: number;
  monitor: CronMonitor;
  initialEnvironment?: string;
  initialFailuresOnly?: boolean;
}) {
  const environments = monitor.environments.map((environment) => environment.environment);
  const [environment, setEnvironment] = useState(initialEnvironment ?? environments[0] ?? '');
  const [failuresOnly, setFailuresOnly] = useState(initialFailuresOnly);
  const checkIns = useCursorPages(
    (cursor) =>
      call(
        client.GET('/api/projects/{id}/monitors/{slug}/check-ins', {
          params: {
            path: { id: projectId, slug: monitor.slug },
            query: {
              environment: environment || undefined,
              status: failuresOnly ? 'failed' : undefined,
              cursor,
              limit: CHECK_INS_PAGE,
            },
          },
        }),
      ),
    true,
  );
  useEffect(() => {
    checkIns.clear();
    void checkIns.load(null);
  }, [projectId, monitor.slug, environment, failuresOnly, monitor.last_check_in_at]);
  const shown = [...checkIns.items].reverse();
  const durations = shown.filter((checkIn) => checkIn.status !== 'missed');
  const max = Math.max(0, ...durations.map((checkIn) => checkIn.duration_ms ?? 0));
  return (
    <section class="card" aria-labelledby="check-ins-title">
      <div class="section-head">
        <h2 id="check-ins-title">{failuresOnly ? 'Failed check-ins' : 'Check-ins'}</h2>
        <label class="inline-field">
          <input type="checkbox" checked={failuresOnly} onChange={(e) => setFailuresOnly(e.currentTarget.checked)} />
          <span>Failures only</span>
        </label>
        {environments.length > 1 && (
          <label class="inline-field">
            <span>Environment</span>
            <select value={environment} onChange={(e) => setEnvironment(e.currentTarget.value)}>
              {environments.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <ErrorMessage error={checkIns.error} onRetry={() => void checkIns.load(null)} />
      {checkIns.items.length === 0 && checkIns.loading && <Loading label="Loading check-ins…" />}
      {checkIns.items.length === 0 && !checkIns.loading && !checkIns.error && (
        failuresOnly ? (
          <Empty title="No failed check-ins">None of the check-ins kept failed.</Empty>
        ) : (
          <Empty title="No check-ins yet">Send the first one with one of the snippets below; runs that do not report are marked missed.</Empty>
        )
      )}
      {durations.length > 0 && (
        <figure class="chart">
          <h3 class="small muted">Durations of the latest {plural(shown.length, 'run')}</h3>
          <BarChart
            class="duration-bars"
            bars={shown.map((checkIn) => ({
              key: checkIn.id,
              value: checkIn.duration_ms ?? 0,
              title: `${new Date(checkIn.created_at).toLocaleString()}: ${statusWord(checkIn.status)}${checkIn.duration_ms !== null ? `, ${durationText(checkIn.duration_ms)}` : ''}`,
              kind: checkIn.status === 'ok' || checkIn.status === 'in_progress' ? undefined : checkIn.status,
              data: { status: checkIn.status },
            }))}
            label={`Durations of the latest ${plural(shown.length, 'run')}, up to ${durationText(max)}`}
            listLabel="Durations"
            labels={[shortTime(shown[0].created_at), 'latest']}
            maxLabel={durationText(max)}
          />
          <figcaption class="chart-legend small muted">
            <span class="legend-item">
              <span class="key" aria-hidden="true" /> ok
            </span>
            <span class="legend-item">
              <span class="key error" aria-hidden="true" /> error, timed out
            </span>
            <span class="legend-item">
              <span class="key missed" aria-hidden="true" /> missed (no bar: it never ran)
            </span>
          </figcaption>
        </figure>
      )}
      {checkIns.items.length > 0 && (
        <ol class="checkin-timeline" aria-label="Check-ins, latest first">
          {checkIns.items.map((checkIn) => (
            <li key={checkIn.id} data-status={checkIn.status}>
              <StatusPill status={checkIn.status} small />
              <span class="timeline-detail">{checkInDetail(checkIn) || <span class="mono">{checkIn.id}</span>}</span>
              <span class="timeline-when">
                <RelTime value={checkIn.created_at} />
              </span>
            </li>
          ))}
        </ol>
      )}
      {checkIns.next && (
        <button type="button" class="btn btn-small btn-block" disabled={checkIns.loading} onClick={() => void checkIns.load(checkIns.next)}>
          {checkIns.loading ? 'Loading…' : 'Show older check-ins'}
        </button>
      )}
    </section>
  );
}
