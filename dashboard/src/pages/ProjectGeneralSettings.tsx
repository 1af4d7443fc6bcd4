import { useState } from 'preact/hooks';
import { call, client, errorMessage, Project } from '../api';
import { CopyButton, FormFeedback } from '../components';
import { navigate } from '../router';
import { plural, relativeTime, toDate } from '../util';

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
      const updated = await call(client.PATCH('/api/projects/{id}', { params: { path: { id: project.id } }, body: { name: name.trim() } }));
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
      const updated = await call(
        client.PATCH('/api/projects/{id}', { params: { path: { id: project.id } }, body: { retention_days: value } }),
      );
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

/** How long the replaced key keeps working; the API takes 0 to 720 hours. */
const GRACE_CHOICES: { hours: number; label: string }[] = [
  { hours: 0, label: 'No grace: the old DSN stops at once' },
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '24 hours' },
  { hours: 168, label: '7 days' },
];

function untilText(value: string): string {
  const date = toDate(value);
  if (!date) return value;
  return `${date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })} (${relativeTime(value)})`;
}

function DsnRow({ id, label, dsn }: { id: string; label: string; dsn: string }) {
  return (
    <div class="dsn">
      <label for={id} class="dsn-label">
        {label}
      </label>
      <div class="dsn-row">
        <input id={id} class="mono" readOnly value={dsn} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton text={dsn} label={`Copy ${label}`} />
      </div>
    </div>
  );
}

function ClientKeyCard({ project, onSaved }: { project: Project; onSaved: (project: Project) => void }) {
  const [asking, setAsking] = useState(false);
  const [grace, setGrace] = useState(24);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const previous = project.previous_dsn && project.previous_client_key_expires_at ? project.previous_dsn : null;

  const rotate = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const updated = await call(
        client.POST('/api/projects/{id}/client-key/rotate', { params: { path: { id: project.id } }, body: { grace_hours: grace } }),
      );
      onSaved(updated);
      setAsking(false);
      setNotice(
        updated.previous_client_key_expires_at
          ? `New DSN created. The old DSN keeps working until ${untilText(updated.previous_client_key_expires_at)}.`
          : 'New DSN created. The old DSN no longer works.',
      );
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="client-key-title">
      <h2 id="client-key-title">Client key</h2>
      <p class="muted small">SDKs send events with the key in this DSN. Rotate it when it has leaked, or to retire old clients.</p>
      <DsnRow id={`settings-dsn-${project.id}`} label="DSN" dsn={project.dsn} />
      {previous && (
        <div class="previous-dsn">
          <DsnRow id={`settings-previous-dsn-${project.id}`} label="Previous DSN" dsn={previous} />
          <small class="hint">
            Still accepted until <strong>{untilText(project.previous_client_key_expires_at!)}</strong>, so that clients can move to the new
            DSN.
          </small>
        </div>
      )}
      {asking ? (
        <form class="rotate-confirm" onSubmit={(event) => void rotate(event)} aria-label="Rotate the client key">
          <fieldset class="field">
            <legend>Keep the current DSN working for</legend>
            {GRACE_CHOICES.map((choice) => (
              <label class="check" key={choice.hours}>
                <input type="radio" name="grace-hours" value={choice.hours} checked={grace === choice.hours} onChange={() => setGrace(choice.hours)} />
                <span>{choice.label}</span>
              </label>
            ))}
          </fieldset>
          <p class="warning-text">
            Every client must be given the new DSN.{' '}
            {grace === 0 ? 'Events sent with the current DSN are refused from now on.' : `After ${plural(grace, 'hour')}, events sent with the current DSN are refused.`}
            {previous ? ' The previous DSN above stops at once.' : ''}
          </p>
          <div class="form-actions">
            <button type="submit" class="btn btn-danger" disabled={busy}>
              {busy ? 'Rotating…' : 'Rotate key'}
            </button>
            <button type="button" class="btn" disabled={busy} onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div class="form-actions">
          <button
            type="button"
            class="btn"
            onClick={() => {
              setNotice(null);
              setError(null);
              setAsking(true);
            }}
          >
            Rotate key…
          </button>
        </div>
      )}
      <FormFeedback error={error} notice={notice} />
    </section>
  );
}

function DangerZone({ project }: { project: Project }) {
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmed = typed.trim() === project.name.trim();

  const remove = async (event: Event) => {
    event.preventDefault();
    if (!confirmed) return;
    setBusy(true);
    setError(null);
    try {
      await call(client.DELETE('/api/projects/{id}', { params: { path: { id: project.id } } }));
      navigate('/');
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  };

  return (
    <section class="card danger-zone" aria-labelledby="danger-zone-title">
      <h2 id="danger-zone-title">Danger zone</h2>
      <p class="small">
        Deleting the project deletes its issues, events, alert rules and alert history, and its DSN stops working. This cannot be undone.
      </p>
      {asking ? (
        <form onSubmit={(event) => void remove(event)} aria-label="Delete the project">
          <label class="field">
            <span>
              Type <strong class="confirm-name">{project.name}</strong> to confirm
            </span>
            <input
              name="confirm-project-name"
              autoComplete="off"
              spellcheck={false}
              value={typed}
              onInput={(event) => setTyped(event.currentTarget.value)}
            />
          </label>
          <div class="form-actions">
            <button type="submit" class="btn btn-danger-solid" disabled={busy || !confirmed}>
              {busy ? 'Deleting…' : 'Delete this project'}
            </button>
            <button
              type="button"
              class="btn"
              disabled={busy}
              onClick={() => {
                setAsking(false);
                setTyped('');
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div class="form-actions">
          <button type="button" class="btn btn-danger" onClick={() => setAsking(true)}>
            Delete project…
          </button>
        </div>
      )}
      <FormFeedback error={error} notice={null} />
    </section>
  );
}

/** The General section: the project's name, retention, client key and, for admins, its deletion. */
export function GeneralSettings({ project, onSaved, canDelete }: { project: Project; onSaved: (project: Project) => void; canDelete: boolean }) {
  return (
    <>
      <NameForm key={`name-${project.id}`} project={project} onSaved={onSaved} />
      <RetentionForm key={`retention-${project.id}`} project={project} onSaved={onSaved} />
      <ClientKeyCard key={`client-key-${project.id}`} project={project} onSaved={onSaved} />
      {canDelete && <DangerZone key={`danger-${project.id}`} project={project} />}
    </>
  );
}
