import { useEffect, useState } from 'preact/hooks';
import { call, client, errorMessage } from '../api';
import { FormFeedback, Loading } from '../components';
import type { components } from '../api-schema';
import { useSubmit } from '../actions';

type Settings = components['schemas']['PrivacySettingsView'];

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** Scrubbing settings: secrets replaced by [Filtered] before events are stored. */
export function DataProtectionForm({ projectId }: { projectId: number }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [scrubData, setScrubData] = useState(true);
  const [scrubIps, setScrubIps] = useState(false);
  const [sensitive, setSensitive] = useState('');
  const [safe, setSafe] = useState('');
  const { busy, error, setError, run } = useSubmit();
  const [notice, setNotice] = useState<string | null>(null);

  const show = (loaded: Settings) => {
    setSettings(loaded);
    setScrubData(loaded.scrub_data);
    setScrubIps(loaded.scrub_ip_addresses);
    setSensitive(loaded.sensitive_fields.join('\n'));
    setSafe(loaded.safe_fields.join('\n'));
  };

  useEffect(() => {
    call(client.GET('/api/projects/{id}/data-protection', { params: { path: { id: projectId } } })).then(
      show,
      (failure: unknown) => setError(errorMessage(failure)),
    );
  }, [projectId]);

  const save = async (event: Event) => {
    event.preventDefault();
    setNotice(null);
    await run(async () => {
      const updated = await call(
        client.PATCH('/api/projects/{id}/data-protection', {
          params: { path: { id: projectId } },
          body: {
            scrub_data: scrubData,
            scrub_ip_addresses: scrubIps,
            sensitive_fields: lines(sensitive),
            safe_fields: lines(safe),
          },
        }),
      );
      show(updated);
      setNotice('Saved. Events received from now on follow these settings.');
    });
  };

  return (
    <form
      id="data-protection"
      class="card data-protection"
      onSubmit={(event) => void save(event)}
      aria-labelledby="data-protection-title"
    >
      <h2 id="data-protection-title">Data protection</h2>
      {!settings && !error ? (
        <Loading label="Loading data protection settings…" />
      ) : (
        <>
          <label class="check">
            <input
              type="checkbox"
              name="scrub-data"
              checked={scrubData}
              onChange={(event) => setScrubData(event.currentTarget.checked)}
            />
            <span>
              Scrub secrets before events are stored
              <small class="hint">
                Passwords, tokens, API keys, Authorization and Cookie headers, session cookies, card numbers,
                IBANs, private keys and passwords in URLs become <code>[Filtered]</code>. Each event shows
                where.
              </small>
            </span>
          </label>
          <label class="check">
            <input
              type="checkbox"
              name="scrub-ip-addresses"
              checked={scrubIps}
              disabled={!scrubData}
              onChange={(event) => setScrubIps(event.currentTarget.checked)}
            />
            <span>
              Also remove IP addresses
              <small class="hint">The user's IP address, and IP addresses inside any value.</small>
            </span>
          </label>
          <div class="field-pair">
            <label class="field">
              <span>Additional sensitive fields</span>
              <textarea
                name="sensitive-fields"
                rows={4}
                spellcheck={false}
                placeholder={'national_id\ndate_of_birth'}
                value={sensitive}
                onInput={(event) => setSensitive(event.currentTarget.value)}
              />
              <small class="hint">
                One per line. A key containing one of them, in any case, has its value scrubbed.
              </small>
            </label>
            <label class="field">
              <span>Safe fields</span>
              <textarea
                name="safe-fields"
                rows={4}
                spellcheck={false}
                placeholder="auth_provider"
                value={safe}
                onInput={(event) => setSafe(event.currentTarget.value)}
              />
              <small class="hint">One per line. Keys with exactly this name are never scrubbed.</small>
            </label>
          </div>
          {settings && (
            <details class="small">
              <summary>Key names scrubbed by default</summary>
              <p class="mono">{settings.default_sensitive_fields.join(', ')}</p>
            </details>
          )}
          <p class="small muted">
            Changes apply to events received from now on. Events already stored keep what they hold.
          </p>
          <div class="form-actions">
            <button type="submit" class="btn btn-primary" disabled={busy || !settings}>
              {busy ? 'Saving…' : 'Save data protection'}
            </button>
          </div>
        </>
      )}
      <FormFeedback error={error} notice={notice} />
    </form>
  );
}
