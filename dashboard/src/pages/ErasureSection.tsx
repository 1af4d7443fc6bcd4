import { useState } from 'preact/hooks';
import { call, client, ErasurePreview, ErasureReport, errorMessage } from '../api';
import { FormFeedback } from '../components';
import { plural } from '../util';

type Counts = Pick<ErasurePreview, 'issues_updated' | 'issues_deleted' | 'erased'>;

const FIELDS: { value: string; label: string; placeholder: string }[] = [
  { value: '', label: 'Any of the four', placeholder: 'ann@example.com' },
  { value: 'id', label: 'User id', placeholder: '42' },
  { value: 'email', label: 'E-mail', placeholder: 'ann@example.com' },
  { value: 'username', label: 'Username', placeholder: 'ann' },
  { value: 'ip', label: 'IP address', placeholder: '203.0.113.7' },
];

/** The API's identifier: `field:value`, or the bare value matched against every field. */
function identifierOf(field: string, value: string): string {
  const text = value.trim();
  return field ? `${field}:${text}` : text;
}

/** What the preview and the erasure count, kind by kind, in the words of the page. */
function rowsOf(counts: Counts): Array<[string, number]> {
  const { erased } = counts;
  return [
    ['Events', erased.events],
    ['Issues deleted, no event left', counts.issues_deleted],
    ['Issues kept, their counts corrected', counts.issues_updated],
    ['Files attached to the events', erased.event_attachments],
    ['User feedback', erased.feedback],
    ['Files sent with feedback', erased.feedback_attachments],
    ['Release health records', erased.release_health_users],
    ['Session records in Redis', erased.session_user_entries + erased.session_states],
    ['Failed digest jobs', erased.failed_jobs],
  ];
}

function isEmpty(counts: Counts): boolean {
  return rowsOf(counts).every(([, count]) => count === 0);
}

function CountsTable({ counts, caption }: { counts: Counts; caption: string }) {
  return (
    <table class="erasure-counts">
      <caption class="sr-only">{caption}</caption>
      <tbody>
        {rowsOf(counts).map(([label, count]) => (
          <tr key={label} class={count === 0 ? 'muted' : undefined}>
            <th scope="row">{label}</th>
            <td>{count.toLocaleString('en')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Erasing a person's data from the project: find them by id, e-mail, username or IP address, see
 * what would be removed (the API's preview, counted by the erasure's own statements), then erase
 * after a confirmation.
 */
export function ErasureSection({ projectId }: { projectId: number }) {
  const [field, setField] = useState('');
  const [value, setValue] = useState('');
  const [preview, setPreview] = useState<ErasurePreview | null>(null);
  const [report, setReport] = useState<ErasureReport | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const placeholder = FIELDS.find((entry) => entry.value === field)?.placeholder;

  const find = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setConfirming(false);
    setPreview(null);
    setReport(null);
    try {
      const identifier = identifierOf(field, value);
      setPreview(
        await call(
          client.GET('/api/projects/{id}/users/{identifier}/erasure-preview', {
            params: { path: { id: projectId, identifier } },
          }),
        ),
      );
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  const erase = async () => {
    if (!preview) return;
    setBusy(true);
    setError(null);
    try {
      const erased = await call(
        client.DELETE('/api/projects/{id}/users/{identifier}', {
          params: { path: { id: projectId, identifier: preview.identifier } },
        }),
      );
      setReport(erased);
      setPreview(null);
      setConfirming(false);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card erasure" aria-labelledby="erasure-title">
      <h2 id="erasure-title">Erase a person's data</h2>
      <p class="muted small">
        When someone asks for their data to be deleted: their events (in every partition, however old), the files attached,
        their feedback, release health's record of them and the failed jobs that hold them. First see what would be removed;
        nothing is removed until you confirm.
      </p>
      <form class="erasure-find" onSubmit={(event) => void find(event)} aria-label="Look up whose data to erase">
        <label class="field">
          <span>Match</span>
          <select name="erasure-field" value={field} onChange={(event) => setField(event.currentTarget.value)}>
            {FIELDS.map((entry) => (
              <option key={entry.value} value={entry.value}>
                {entry.label}
              </option>
            ))}
          </select>
        </label>
        <label class="field grow">
          <span>Person</span>
          <input
            name="erasure-value"
            required
            maxLength={1000}
            autoComplete="off"
            spellcheck={false}
            placeholder={placeholder}
            value={value}
            onInput={(event) => setValue(event.currentTarget.value)}
          />
        </label>
        <button type="submit" class="btn btn-primary" disabled={busy || !value.trim()}>
          {busy && !confirming ? 'Finding…' : 'Find'}
        </button>
      </form>
      <small class="hint">
        Compared with the user of each event as the SDK sent it; e-mail addresses in any case, the rest exactly.
      </small>
      {preview && (
        <div class="erasure-preview" aria-live="polite">
          <h3>
            What erasing <span class="mono break-anywhere">{preview.identifier}</span> would remove
          </h3>
          {isEmpty(preview) ? (
            <p>Nothing of this person is stored in this project.</p>
          ) : (
            <>
              <CountsTable counts={preview} caption="What would be removed" />
              {confirming ? (
                <div class="erasure-confirm">
                  <p class="warning-text">
                    {`${plural(preview.erased.events, 'event')} and everything listed above will be deleted. This cannot be undone.`}
                  </p>
                  <div class="form-actions">
                    <button type="button" class="btn btn-danger-solid" disabled={busy} onClick={() => void erase()}>
                      {busy ? 'Erasing…' : 'Erase permanently'}
                    </button>
                    <button type="button" class="btn" disabled={busy} onClick={() => setConfirming(false)}>
                      Cancel
                    </button>
                  </div>
                </div>
              ) : (
                <div class="form-actions">
                  <button type="button" class="btn btn-danger" onClick={() => setConfirming(true)}>
                    Erase this data…
                  </button>
                </div>
              )}
            </>
          )}
        </div>
      )}
      {report && (
        <div class="erasure-done">
          <p role="status" class="alert alert-success">
            Erased the data of <span class="mono break-anywhere">{report.identifier}</span>.
          </p>
          <CountsTable counts={report} caption="What was removed" />
          <p class="muted small">The audit log records the erasure with these counts, naming the person by a hash only.</p>
        </div>
      )}
      <FormFeedback error={error} notice={null} />
    </section>
  );
}
