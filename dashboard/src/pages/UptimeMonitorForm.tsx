import { useState } from 'preact/hooks';
import { useSubmit } from '../actions';
import { call, client, UptimeMonitor, UptimeMonitorInput } from '../api';
import { DeadEnd, ErrorMessage, Loading, PageHeader, ProjectLoadError, useAsync, useTitle } from '../components';
import { navigate } from '../router';
import { useProject } from './ProjectHeader';
import './monitors.css';

const METHODS: UptimeMonitorInput['method'][] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Numbers as typed: an empty field is left to the server's default, anything else is sent as it is. */
function numberOrUndefined(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

function headersText(headers: Record<string, string> | undefined): string {
  return Object.entries(headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf(':');
    if (!line.trim()) continue;
    if (at <= 0) throw new Error(`Write each header as "Name: value" ("${line.trim()}" has no colon).`);
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}

/** The monitor's page after a save; the list after creating one from it. */
function monitorUrl(projectId: number, id: number): string {
  return `/projects/${projectId}/monitors/uptime/${id}`;
}

/** Creates an uptime monitor, or edits `monitorId`'s. */
export function UptimeMonitorFormPage({ projectId, monitorId }: { projectId: number; monitorId?: number }) {
  const project = useProject(projectId);
  const existing = useAsync(
    () =>
      monitorId === undefined
        ? Promise.resolve(undefined)
        : call(client.GET('/api/projects/{projectId}/uptime-monitors/{monitorId}', { params: { path: { projectId, monitorId } } })),
    [projectId, monitorId],
  );
  useTitle(monitorId === undefined ? 'New uptime monitor' : 'Edit uptime monitor');
  if (project.error) return <ProjectLoadError project={project} />;
  if (existing.status === 404) {
    return (
      <DeadEnd title="Monitor not found" links={[{ href: `/projects/${projectId}/monitors`, label: 'Back to monitors' }]}>
        This project has no such uptime monitor; it may have been deleted.
      </DeadEnd>
    );
  }
  if (existing.error) return <ErrorMessage error={existing.error} onRetry={existing.reload} status={existing.status} />;
  if (!project.data || existing.loading) return <Loading />;
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Projects</a> <span aria-hidden="true">/</span> <a href={`/projects/${projectId}/issues`}>{project.data.name}</a>{' '}
        <span aria-hidden="true">/</span> <a href={`/projects/${projectId}/monitors`}>Monitors</a>
      </nav>
      <PageHeader title={existing.data ? `Edit ${existing.data.name}` : 'New uptime monitor'} />
      <UptimeMonitorForm projectId={projectId} monitor={existing.data} />
    </>
  );
}

function UptimeMonitorForm({ projectId, monitor }: { projectId: number; monitor: UptimeMonitor | undefined }) {
  const [name, setName] = useState(monitor?.name ?? '');
  const [url, setUrl] = useState(monitor?.url ?? 'https://');
  const [method, setMethod] = useState<UptimeMonitorInput['method']>(monitor?.method ?? 'GET');
  const [headers, setHeaders] = useState(headersText(monitor?.headers));
  const [body, setBody] = useState(monitor?.body ?? '');
  const [statusMin, setStatusMin] = useState(String(monitor?.expected_status.min ?? 200));
  const [statusMax, setStatusMax] = useState(String(monitor?.expected_status.max ?? 299));
  const [bodyContains, setBodyContains] = useState(monitor?.body_contains ?? '');
  const [interval, setIntervalSeconds] = useState(String(monitor?.interval_seconds ?? 60));
  const [timeout, setTimeoutSeconds] = useState(String(monitor?.timeout_seconds ?? 10));
  const [tlsDays, setTlsDays] = useState(String(monitor?.tls_expiry_days ?? 14));
  const [failures, setFailures] = useState(String(monitor?.failure_threshold ?? 1));
  const [recoveries, setRecoveries] = useState(String(monitor?.recovery_threshold ?? 1));
  const { busy, error, run } = useSubmit();

  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const input: UptimeMonitorInput = {
        name: name.trim(),
        url: url.trim(),
        method,
        headers: parseHeaders(headers),
        body: body === '' ? null : body,
        expected_status: { min: Number(statusMin), max: Number(statusMax) },
        body_contains: bodyContains === '' ? null : bodyContains,
        interval_seconds: numberOrUndefined(interval),
        timeout_seconds: numberOrUndefined(timeout),
        tls_expiry_days: numberOrUndefined(tlsDays),
        failure_threshold: numberOrUndefined(failures),
        recovery_threshold: numberOrUndefined(recoveries),
      };
      const saved = monitor
        ? await call(
            client.PATCH('/api/projects/{projectId}/uptime-monitors/{monitorId}', {
              params: { path: { projectId, monitorId: monitor.id } },
              body: input,
            }),
          )
        : await call(client.POST('/api/projects/{projectId}/uptime-monitors', { params: { path: { projectId } }, body: input }));
      navigate(monitorUrl(projectId, saved.id));
    });
  };

  const number = (label: string, value: string, set: (value: string) => void, props: { min?: number; max?: number; hint?: string; name: string }) => (
    <label class="field">
      <span>{label}</span>
      <input type="number" name={props.name} min={props.min} max={props.max} value={value} onInput={(e) => set(e.currentTarget.value)} />
      {props.hint && <small class="hint">{props.hint}</small>}
    </label>
  );

  return (
    <form class="card form-grid monitor-form" noValidate onSubmit={save} aria-label={monitor ? 'Edit uptime monitor' : 'New uptime monitor'}>
      <label class="field">
        <span>Name</span>
        <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="Shop front page" />
      </label>
      <label class="field">
        <span>URL</span>
        <input name="url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://shop.example.com/health" />
        <small class="hint">http or https; no user name or password in it, and not a private address.</small>
      </label>
      <fieldset>
        <legend>Request</legend>
        <label class="field">
          <span>Method</span>
          <select name="method" value={method} onChange={(e) => setMethod(e.currentTarget.value as UptimeMonitorInput['method'])}>
            {METHODS.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Headers</span>
          <textarea name="headers" rows={2} value={headers} onInput={(e) => setHeaders(e.currentTarget.value)} placeholder="Accept: text/html" />
          <small class="hint">One a line, as "Name: value".</small>
        </label>
        {method !== 'GET' && method !== 'HEAD' && (
          <label class="field">
            <span>Body</span>
            <textarea name="body" rows={3} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
          </label>
        )}
      </fieldset>
      <fieldset>
        <legend>What counts as up</legend>
        <div class="field-row">
          {number('Lowest status', statusMin, setStatusMin, { name: 'status-min', min: 100, max: 599 })}
          {number('Highest status', statusMax, setStatusMax, { name: 'status-max', min: 100, max: 599 })}
        </div>
        <label class="field">
          <span>Body contains (optional)</span>
          <input name="body-contains" value={bodyContains} onInput={(e) => setBodyContains(e.currentTarget.value)} placeholder="ok" />
          <small class="hint">Checked in the first 64 KiB of the answer.</small>
        </label>
      </fieldset>
      <fieldset>
        <legend>Schedule and alerts</legend>
        <div class="field-row">
          {number('Interval (seconds)', interval, setIntervalSeconds, { name: 'interval', min: 1 })}
          {number('Timeout (seconds)', timeout, setTimeoutSeconds, { name: 'timeout', min: 1, hint: 'Less than the interval.' })}
          {number('TLS warning (days)', tlsDays, setTlsDays, { name: 'tls-days', min: 0, hint: '0 turns it off.' })}
        </div>
        <div class="field-row">
          {number('Down after failures', failures, setFailures, { name: 'failure-threshold', min: 1, hint: 'In a row, before an issue opens.' })}
          {number('Up after successes', recoveries, setRecoveries, { name: 'recovery-threshold', min: 1, hint: 'In a row, before it resolves.' })}
        </div>
      </fieldset>
      <ErrorMessage error={error} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : monitor ? 'Save monitor' : 'Create monitor'}
        </button>
        <a class="btn" href={monitor ? monitorUrl(projectId, monitor.id) : `/projects/${projectId}/monitors`}>
          Cancel
        </a>
      </div>
    </form>
  );
}
