import { useState } from 'preact/hooks';
import { useSubmit } from '../actions';
import { call, client, UptimeMonitor, UptimeMonitorInput } from '../api';
import { PageHeader, useAsync, useTitle } from '../components';
import { navigate } from '../router';
import { uptimeMonitorUrl } from './UptimeMonitorPage';
import { MonitorFormEnd, MonitorFrame, NumberField, numberOrUndefined } from './MonitorFrame';
import './monitors.css';

const METHODS: UptimeMonitorInput['method'][] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

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

/** Creates an uptime monitor, or edits `monitorId`'s. */
export function UptimeMonitorFormPage({ projectId, monitorId }: { projectId: number; monitorId?: number }) {
  const existing = useAsync(
    () =>
      monitorId === undefined
        ? Promise.resolve(undefined)
        : call(
            client.GET('/api/projects/{projectId}/uptime-monitors/{monitorId}', {
              params: { path: { projectId, monitorId } },
            }),
          ),
    [projectId, monitorId],
  );
  useTitle(monitorId === undefined ? 'New uptime monitor' : 'Edit uptime monitor');
  return (
    <MonitorFrame projectId={projectId} monitor={existing} missing="This project has no such uptime monitor; it may have been deleted.">
      {(_, monitor) => (
        <>
          <PageHeader title={monitor ? `Edit ${monitor.name}` : 'New uptime monitor'} />
          <UptimeMonitorForm projectId={projectId} monitor={monitor} />
        </>
      )}
    </MonitorFrame>
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
        : await call(
            client.POST('/api/projects/{projectId}/uptime-monitors', {
              params: { path: { projectId } },
              body: input,
            }),
          );
      navigate(uptimeMonitorUrl(projectId, saved.id));
    });
  };

  return (
    <form class="card form-grid monitor-form" noValidate onSubmit={save} aria-label={monitor ? 'Edit uptime monitor' : 'New uptime monitor'}>
      <label class="field">
        <span>Name</span>
        <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="Shop front page" />
      </label>
      <label class="field">
        <span>URL</span>
        <input
          name="url"
          type="url"
          required
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          placeholder="https://shop.example.com/health"
        />
        <small class="hint">
          http or https, with no user name or password in it. Private and loopback addresses only where the
          installation allows them (UPTIME_ALLOW_PRIVATE_NETWORKS); the server says so when it refuses one.
        </small>
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
          <small class="hint">
            One a line, as "Name: value". Saved values are shown masked: leave a masked value as it is to keep it, and
            write them again when the monitor moves to another site.
          </small>
        </label>
        {method !== 'GET' && method !== 'HEAD' && (
          <label class="field">
            <span>Body</span>
            <textarea name="body" rows={3} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
            <small class="hint">A saved body is shown masked: leave it as it is to keep it, and write it again when the monitor moves to another site.</small>
          </label>
        )}
      </fieldset>
      <fieldset>
        <legend>What counts as up</legend>
        <div class="field-row">
          <NumberField label="Lowest status" value={statusMin} onInput={setStatusMin} name="status-min" min={100} max={599} />
          <NumberField label="Highest status" value={statusMax} onInput={setStatusMax} name="status-max" min={100} max={599} />
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
          <NumberField label="Interval (seconds)" value={interval} onInput={setIntervalSeconds} name="interval" min={1} />
          <NumberField label="Timeout (seconds)" value={timeout} onInput={setTimeoutSeconds} name="timeout" min={1} hint="Less than the interval." />
          <NumberField label="TLS warning (days)" value={tlsDays} onInput={setTlsDays} name="tls-days" min={0} hint="0 turns it off." />
        </div>
        <div class="field-row">
          <NumberField
            label="Down after failures"
            value={failures}
            onInput={setFailures}
            name="failure-threshold"
            min={1}
            hint="In a row, before an issue opens."
          />
          <NumberField
            label="Up after successes"
            value={recoveries}
            onInput={setRecoveries}
            name="recovery-threshold"
            min={1}
            hint="In a row, before it resolves."
          />
        </div>
      </fieldset>
      <MonitorFormEnd
        error={error}
        busy={busy}
        editing={!!monitor}
        cancelHref={monitor ? uptimeMonitorUrl(projectId, monitor.id) : `/projects/${projectId}/monitors`}
      />
    </form>
  );
}
