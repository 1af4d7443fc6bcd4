import { useMemo, useState } from 'preact/hooks';
import { useSubmit } from '../actions';
import { call, client, CronMonitor, CronMonitorInput } from '../api';
import { PageHeader, useAsync, useTitle } from '../components';
import { navigate } from '../router';
import { cronMonitorUrl } from './CronMonitorPage';
import { MonitorFormEnd, MonitorFrame, NumberField, numberOrUndefined } from './MonitorFrame';
import './monitors.css';

type Unit = NonNullable<CronMonitorInput['schedule']['unit']>;
const UNITS: Unit[] = ['minute', 'hour', 'day', 'week', 'month', 'year'];

/** The zones this browser knows (every IANA zone in current browsers), UTC first. */
function timeZones(): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return ['UTC', ...supported.filter((zone) => zone !== 'UTC')];
}

/** Creates a cron monitor, or edits `slug`'s. */
export function CronMonitorFormPage({ projectId, slug }: { projectId: number; slug?: string }) {
  const existing = useAsync(
    () =>
      slug === undefined
        ? Promise.resolve(undefined)
        : call(client.GET('/api/projects/{id}/monitors/{slug}', { params: { path: { id: projectId, slug } } })),
    [projectId, slug],
  );
  useTitle(slug === undefined ? 'New cron monitor' : 'Edit cron monitor');
  return (
    <MonitorFrame projectId={projectId} monitor={existing} missing={`This project has no cron monitor ${slug}; it may have been deleted.`}>
      {(_, monitor) => (
        <>
          <PageHeader title={monitor ? `Edit ${monitor.name}` : 'New cron monitor'} />
          <CronMonitorForm projectId={projectId} monitor={monitor} />
        </>
      )}
    </MonitorFrame>
  );
}

function CronMonitorForm({ projectId, monitor }: { projectId: number; monitor: CronMonitor | undefined }) {
  const zones = useMemo(timeZones, []);
  const [name, setName] = useState(monitor?.name ?? '');
  const [slug, setSlug] = useState(monitor?.slug ?? '');
  const [type, setType] = useState<'crontab' | 'interval'>(monitor?.schedule.type ?? 'crontab');
  const [crontab, setCrontab] = useState(monitor?.schedule.type === 'crontab' ? String(monitor.schedule.value) : '0 * * * *');
  const [every, setEvery] = useState(monitor?.schedule.type === 'interval' ? String(monitor.schedule.value) : '10');
  const [unit, setUnit] = useState<Unit>(monitor?.schedule.unit ?? 'minute');
  const [timezone, setTimezone] = useState(monitor?.timezone ?? 'UTC');
  const [margin, setMargin] = useState(String(monitor?.checkin_margin ?? 1));
  const [maxRuntime, setMaxRuntime] = useState(String(monitor?.max_runtime ?? 30));
  const [failures, setFailures] = useState(String(monitor?.failure_issue_threshold ?? 1));
  const [recoveries, setRecoveries] = useState(String(monitor?.recovery_threshold ?? 1));
  const { busy, error, run } = useSubmit();

  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const fields = {
        name: name.trim(),
        schedule: type === 'crontab' ? { type, value: crontab.trim() } : { type, value: Number(every), unit },
        timezone,
        checkin_margin: numberOrUndefined(margin),
        max_runtime: numberOrUndefined(maxRuntime),
        failure_issue_threshold: numberOrUndefined(failures),
        recovery_threshold: numberOrUndefined(recoveries),
      } satisfies CronMonitorInput;
      const saved = monitor
        ? await call(
            client.PATCH('/api/projects/{id}/monitors/{slug}', {
              params: { path: { id: projectId, slug: monitor.slug } },
              body: fields,
            }),
          )
        : await call(
            client.POST('/api/projects/{id}/monitors', {
              params: { path: { id: projectId } },
              body: { ...fields, slug: slug.trim() || undefined },
            }),
          );
      navigate(cronMonitorUrl(projectId, saved.slug));
    });
  };

  return (
    <form class="card form-grid monitor-form" noValidate onSubmit={save} aria-label={monitor ? 'Edit cron monitor' : 'New cron monitor'}>
      <div class="field-row">
        <label class="field">
          <span>Name</span>
          <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="Nightly backup" />
        </label>
        {!monitor && (
          <label class="field">
            <span>Slug (optional)</span>
            <input name="slug" value={slug} onInput={(e) => setSlug(e.currentTarget.value)} placeholder="nightly-backup" />
            <small class="hint">What the SDKs name it by; made from the name when left empty.</small>
          </label>
        )}
      </div>
      <fieldset>
        <legend>Schedule</legend>
        <div class="inline-actions" role="radiogroup" aria-label="Schedule type">
          <label class="check">
            <input type="radio" name="schedule-type" checked={type === 'crontab'} onChange={() => setType('crontab')} /> Cron expression
          </label>
          <label class="check">
            <input type="radio" name="schedule-type" checked={type === 'interval'} onChange={() => setType('interval')} /> Fixed interval
          </label>
        </div>
        {type === 'crontab' ? (
          <label class="field">
            <span>Crontab</span>
            <input name="crontab" class="mono" value={crontab} onInput={(e) => setCrontab(e.currentTarget.value)} placeholder="*/5 * * * *" />
            <small class="hint">Minute, hour, day of month, month, day of week: "0 3 * * *" runs at 03:00 every day.</small>
          </label>
        ) : (
          <div class="field-row">
            <NumberField label="Every" name="interval" value={every} onInput={setEvery} />
            <label class="field">
              <span>Unit</span>
              <select name="unit" value={unit} onChange={(e) => setUnit(e.currentTarget.value as Unit)}>
                {UNITS.map((value) => (
                  <option key={value} value={value}>
                    {value}s
                  </option>
                ))}
              </select>
            </label>
          </div>
        )}
        <label class="field">
          <span>Timezone</span>
          <select name="timezone" value={timezone} onChange={(e) => setTimezone(e.currentTarget.value)}>
            {!zones.includes(timezone) && <option value={timezone}>{timezone}</option>}
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      <fieldset>
        <legend>Tolerances and alerts</legend>
        <div class="field-row">
          <NumberField label="Margin (minutes)" name="margin" value={margin} onInput={setMargin} hint="Late by more than this: missed." />
          <NumberField
            label="Max runtime (minutes)"
            name="max-runtime"
            value={maxRuntime}
            onInput={setMaxRuntime}
            hint="In progress longer: timed out."
          />
        </div>
        <div class="field-row">
          <NumberField
            label="Issue after failures"
            name="failure-threshold"
            value={failures}
            onInput={setFailures}
            hint="In a row, before an issue opens."
          />
          <NumberField
            label="Resolve after successes"
            name="recovery-threshold"
            value={recoveries}
            onInput={setRecoveries}
            hint="In a row, before it resolves."
          />
        </div>
      </fieldset>
      <MonitorFormEnd
        error={error}
        busy={busy}
        editing={!!monitor}
        cancelHref={monitor ? cronMonitorUrl(projectId, monitor.slug) : `/projects/${projectId}/monitors`}
      />
    </form>
  );
}
