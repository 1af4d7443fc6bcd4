import { useEffect, useState } from 'preact/hooks';
import { useSubmit } from '../actions';
import { call, client, StatusPageSettings } from '../api';
import { CheckboxPicker, CopyButton, ErrorMessage, FormFeedback, Loading, useAsync } from '../components';

/** What a title or a name becomes as a slug: lower-case letters, digits and dashes. */
function slugOf(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

/**
 * The project's public status page: off by default; when on, shows the chosen monitors to anyone at
 * /status/{slug}, without sign-in. For admins (the API refuses others).
 */
export function StatusPageSettingsForm({ projectId, projectName }: { projectId: number; projectName: string }) {
  const settings = useAsync(() => call(client.GET('/api/projects/{projectId}/status-page', { params: { path: { projectId } } })), [projectId]);
  const uptime = useAsync(() => call(client.GET('/api/projects/{projectId}/uptime-monitors', { params: { path: { projectId } } })), [projectId]);
  const crons = useAsync(() => call(client.GET('/api/projects/{id}/monitors', { params: { path: { id: projectId } } })), [projectId]);
  return (
    <section class="card" aria-labelledby="status-page-title">
      <h2 id="status-page-title">Public status page</h2>
      <p class="muted small">
        A page anyone can open without signing in, showing the monitors you pick with their state and 90 days of history, and nothing else.
      </p>
      <ErrorMessage
        error={settings.error ?? uptime.error ?? crons.error}
        onRetry={() => (settings.reload(), uptime.reload(), crons.reload())}
        status={settings.status ?? uptime.status ?? crons.status}
      />
      {(settings.loading || uptime.loading) && !settings.data && <Loading />}
      {settings.data && uptime.data && crons.data && (
        <StatusPageFields
          projectId={projectId}
          projectName={projectName}
          settings={settings.data}
          onSaved={settings.setData}
          uptimeMonitors={uptime.data.data.map((monitor) => ({ id: monitor.id, label: monitor.name }))}
          cronMonitors={crons.data.data.map((monitor) => ({ id: monitor.id, label: monitor.name }))}
        />
      )}
    </section>
  );
}

function StatusPageFields({
  projectId,
  projectName,
  settings,
  onSaved,
  uptimeMonitors,
  cronMonitors,
}: {
  projectId: number;
  projectName: string;
  settings: StatusPageSettings;
  onSaved: (settings: StatusPageSettings) => void;
  uptimeMonitors: { id: number; label: string }[];
  cronMonitors: { id: number; label: string }[];
}) {
  const [enabled, setEnabled] = useState(settings.enabled);
  const [slug, setSlug] = useState(settings.slug ?? slugOf(projectName));
  const [title, setTitle] = useState(settings.title || `${projectName} status`);
  const [uptimeIds, setUptimeIds] = useState(settings.uptime_monitor_ids);
  const [cronIds, setCronIds] = useState(settings.cron_monitor_ids);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useSubmit();
  useEffect(() => setNotice(null), [enabled, slug, title, uptimeIds, cronIds]);
  const publicUrl = settings.slug ? `${window.location.origin}/status/${settings.slug}` : null;

  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const saved = await call(
        client.PUT('/api/projects/{projectId}/status-page', {
          params: { path: { projectId } },
          body: {
            enabled,
            slug: slug.trim() || null,
            title: title.trim(),
            uptime_monitor_ids: uptimeIds,
            cron_monitor_ids: cronIds,
          },
        }),
      );
      onSaved(saved);
      setNotice(saved.enabled ? 'Saved: the status page is public.' : 'Saved: the status page is off.');
    });
  };

  return (
    <form class="form-grid monitor-form" onSubmit={save} aria-label="Status page settings">
      <label class="check">
        <input type="checkbox" name="status-enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        Publish the status page
      </label>
      <div class="field-pair">
        <label class="field">
          <span>Address</span>
          <input name="status-slug" value={slug} maxLength={64} onInput={(e) => setSlug(e.currentTarget.value)} />
          <small class="hint">
            /status/<span class="mono">{slug || '…'}</span>: lower-case letters, digits and dashes.
          </small>
        </label>
        <label class="field">
          <span>Title</span>
          <input name="status-title" value={title} maxLength={200} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
      </div>
      <fieldset class="field">
        <legend>Uptime monitors shown</legend>
        {uptimeMonitors.length === 0 ? (
          <p class="muted small">
            This project has no uptime monitor yet: <a href={`/projects/${projectId}/monitors/uptime/new`}>add one</a>.
          </p>
        ) : (
          <CheckboxPicker options={uptimeMonitors} chosen={uptimeIds} onChange={setUptimeIds} />
        )}
      </fieldset>
      <fieldset class="field">
        <legend>Cron monitors shown</legend>
        {cronMonitors.length === 0 ? (
          <p class="muted small">
            This project has no cron monitor yet: <a href={`/projects/${projectId}/monitors`}>set one up</a>.
          </p>
        ) : (
          <CheckboxPicker options={cronMonitors} chosen={cronIds} onChange={setCronIds} />
        )}
      </fieldset>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save status page'}
        </button>
        {settings.enabled && publicUrl && (
          <>
            <a href={publicUrl} target="_blank" rel="noopener">
              Open the public page
            </a>
            <CopyButton text={publicUrl} label="Copy link" />
          </>
        )}
      </div>
      <FormFeedback error={error} notice={notice} />
    </form>
  );
}
