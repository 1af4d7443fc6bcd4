import { useState } from 'preact/hooks';
import { api, errorMessage, Project } from '../api';
import { ErrorMessage, Loading, useTitle } from '../components';
import { plural } from '../util';
import { ProjectHeader, useProject } from './ProjectHeader';

const MIN_DAYS = 1;
const MAX_DAYS = 3650;

function retentionText(days: number | null | undefined): string {
  return typeof days === 'number' ? `events are kept for ${plural(days, 'day')}` : 'events follow the installation default';
}

function NameForm({ project, onSaved }: { project: Project; onSaved: (project: Project) => void }) {
  const [name, setName] = useState(project.name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const updated = await api.patch<Project>(`/api/projects/${project.id}`, { name: name.trim() });
      setName(updated.name);
      onSaved(updated);
      setNotice('Project renamed.');
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={(event) => void save(event)} aria-labelledby="project-name-title">
      <h2 id="project-name-title">Name</h2>
      <div class="inline-form">
        <label class="field grow">
          <span>Project name</span>
          <input name="project-name" required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <button type="submit" class="btn btn-primary" disabled={busy || !name.trim() || name.trim() === project.name}>
          {busy ? 'Saving…' : 'Rename'}
        </button>
      </div>
      <small class="hint">
        The slug (<span class="mono">{project.slug}</span>) and the DSN stay the same.
      </small>
      <FormFeedback error={error} notice={notice} />
    </form>
  );
}

/** A form's outcome: the server's error, or what was saved. */
function FormFeedback({ error, notice }: { error: string | null; notice: string | null }) {
  return (
    <div class="form-feedback">
      <ErrorMessage error={error} />
      {notice && (
        <div class="alert alert-success" role="status">
          {notice}
        </div>
      )}
    </div>
  );
}

function RetentionForm({ project, onSaved }: { project: Project; onSaved: (project: Project) => void }) {
  const current = project.retention_days ?? null;
  const [mode, setMode] = useState<'default' | 'custom'>(current === null ? 'default' : 'custom');
  const [days, setDays] = useState(current === null ? '' : String(current));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setNotice(null);
    let value: number | null = null;
    if (mode === 'custom') {
      // Out-of-range and fractional numbers go to the server, whose message says what it accepts.
      const text = days.trim();
      if (text === '' || !Number.isFinite(Number(text))) {
        setError(`Enter the number of days to keep events, from ${MIN_DAYS} to ${MAX_DAYS}.`);
        return;
      }
      value = Number(text);
    }
    setBusy(true);
    try {
      const updated = await api.patch<Project>(`/api/projects/${project.id}`, { retention_days: value });
      const saved = updated.retention_days ?? null;
      setMode(saved === null ? 'default' : 'custom');
      setDays(saved === null ? days : String(saved));
      onSaved(updated);
      setNotice(`Saved: ${retentionText(saved)}.`);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" noValidate onSubmit={(event) => void save(event)} aria-labelledby="retention-title">
      <h2 id="retention-title">Event retention</h2>
      <p class="muted small">
        Older events are deleted by the hourly retention run, and with them the counts and issues they alone made up.
      </p>
      <p class="retention-current">
        Current setting: <strong>{retentionText(current)}</strong>
      </p>
      <fieldset class="field retention-choice">
        <legend class="sr-only">How long to keep events</legend>
        <label class="check">
          <input type="radio" name="retention-mode" value="default" checked={mode === 'default'} onChange={() => setMode('default')} />
          <span>
            Use the installation default <span class="muted small">(EVENT_RETENTION_DAYS, 90 days unless configured)</span>
          </span>
        </label>
        <div class="check retention-custom">
          <input
            id="retention-custom"
            type="radio"
            name="retention-mode"
            value="custom"
            checked={mode === 'custom'}
            onChange={() => setMode('custom')}
          />
          <label for="retention-custom">Keep events for</label>
          <input
            name="retention-days"
            type="number"
            min={MIN_DAYS}
            max={MAX_DAYS}
            step={1}
            inputMode="numeric"
            class="retention-days"
            aria-label="Days to keep events"
            aria-describedby="retention-days-hint"
            placeholder="30"
            value={days}
            onFocus={() => setMode('custom')}
            onInput={(event) => {
              setMode('custom');
              setDays(event.currentTarget.value);
            }}
          />
          <span>days</span>
        </div>
        <small id="retention-days-hint" class="hint">
          From {MIN_DAYS} to {MAX_DAYS.toLocaleString()} days.
        </small>
      </fieldset>
      <FormFeedback error={error} notice={notice} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save retention'}
        </button>
      </div>
    </form>
  );
}

export function ProjectSettingsPage({ projectId }: { projectId: number }) {
  const project = useProject(projectId);
  useTitle(project.data ? `${project.data.name} settings` : 'Project settings');
  if (project.error) return <ErrorMessage error={project.error} onRetry={project.reload} />;
  if (!project.data) return <Loading label="Loading project…" />;
  const saved = (updated: Project) => project.setData(updated);

  return (
    <>
      <ProjectHeader project={project.data} active="settings" />
      <div class="settings-stack">
        <NameForm key={`name-${projectId}`} project={project.data} onSaved={saved} />
        <RetentionForm key={`retention-${projectId}`} project={project.data} onSaved={saved} />
      </div>
    </>
  );
}
