import { useEffect, useState } from 'preact/hooks';
import { call, client, errorMessage } from '../api';
import { FormFeedback, Loading } from '../components';
import type { components } from '../api-schema';
import './quotas.css';
import { useSubmit } from '../actions';

type Quotas = components['schemas']['QuotasView'];

const count = (value: number) => value.toLocaleString('en');

/** A quota as typed: empty is no quota; anything else must be a whole number, 0 or more. */
function parseQuota(text: string, label: string, unit = 'events'): number | null | string {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^\d+$/.test(trimmed)) return `${label} must be a whole number of ${unit} (0 or more), or empty for none.`;
  return Number(trimmed);
}

/** Daily and monthly event quotas, the daily session quota and spike protection, with what is used of them now. */
export function QuotasForm({ projectId }: { projectId: number }) {
  const [quotas, setQuotas] = useState<Quotas | null>(null);
  const [daily, setDaily] = useState('');
  const [monthly, setMonthly] = useState('');
  const [sessions, setSessions] = useState('');
  const [spikes, setSpikes] = useState(true);
  const { busy, error, setError, run } = useSubmit();
  const [notice, setNotice] = useState<string | null>(null);

  const show = (loaded: Quotas) => {
    setQuotas(loaded);
    setDaily(loaded.daily_quota === null ? '' : String(loaded.daily_quota));
    setMonthly(loaded.monthly_quota === null ? '' : String(loaded.monthly_quota));
    setSessions(loaded.daily_session_quota === null ? '' : String(loaded.daily_session_quota));
    setSpikes(loaded.spike_protection);
  };

  useEffect(() => {
    call(client.GET('/api/projects/{id}/quotas', { params: { path: { id: projectId } } })).then(show, (failure: unknown) =>
      setError(errorMessage(failure)),
    );
  }, [projectId]);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setNotice(null);
    const dailyQuota = parseQuota(daily, 'The daily quota');
    const monthlyQuota = parseQuota(monthly, 'The monthly quota');
    const sessionQuota = parseQuota(sessions, 'The daily session quota', 'session items');
    for (const parsed of [dailyQuota, monthlyQuota, sessionQuota]) {
      if (typeof parsed === 'string') {
        setError(parsed);
        return;
      }
    }
    await run(async () => {
      const updated = await call(
        client.PATCH('/api/projects/{id}/quotas', {
          params: { path: { id: projectId } },
          body: {
            daily_quota: dailyQuota as number | null,
            monthly_quota: monthlyQuota as number | null,
            daily_session_quota: sessionQuota as number | null,
            spike_protection: spikes,
          },
        }),
      );
      show(updated);
      setNotice('Saved. Ingest applies it at once.');
    });
  };

  const usage = quotas?.usage ?? null;
  return (
    <form id="quotas" class="card quotas" onSubmit={(event) => void save(event)} aria-labelledby="quotas-title">
      <h2 id="quotas-title">Quotas and spike protection</h2>
      {!quotas && !error ? (
        <Loading label="Loading quotas…" />
      ) : (
        <>
          <div class="field-pair">
            <label class="field">
              <span>Daily quota</span>
              <input
                name="daily-quota"
                inputMode="numeric"
                placeholder="no quota"
                value={daily}
                aria-describedby="daily-quota-hint"
                onInput={(event) => setDaily(event.currentTarget.value)}
              />
              <small class="hint" id="daily-quota-hint">
                Events per UTC day.{usage ? ` Today: ${count(usage.today)}.` : ''}
              </small>
            </label>
            <label class="field">
              <span>Monthly quota</span>
              <input
                name="monthly-quota"
                inputMode="numeric"
                placeholder="no quota"
                value={monthly}
                aria-describedby="monthly-quota-hint"
                onInput={(event) => setMonthly(event.currentTarget.value)}
              />
              <small class="hint" id="monthly-quota-hint">
                Events per UTC month.{usage ? ` This month: ${count(usage.this_month)}.` : ''}
              </small>
            </label>
          </div>
          <label class="field">
            <span>Daily session quota</span>
            <input
              name="daily-session-quota"
              inputMode="numeric"
              placeholder="no quota"
              value={sessions}
              aria-describedby="daily-session-quota-hint"
              onInput={(event) => setSessions(event.currentTarget.value)}
            />
            <small class="hint" id="daily-session-quota-hint">
              Session items (release health) per UTC day; they never use up the event quotas.
              {usage ? ` Today: ${count(usage.sessions_today)}.` : ''}
            </small>
          </label>
          <label class="check">
            <input
              type="checkbox"
              name="spike-protection"
              checked={spikes}
              onChange={(event) => setSpikes(event.currentTarget.checked)}
            />
            <span>
              Spike protection
              <small class="hint">
                Drops events far past the project's average hourly volume of the last 7 days (a multiple
                of it, never below a floor), until the hour ends.
                {usage?.spike_limit != null
                  ? ` Limit now: ${count(usage.spike_limit)} events per hour; this hour: ${count(usage.this_hour)}.`
                  : ''}
              </small>
            </span>
          </label>
          <p class="small muted">
            Past a quota or the spike limit, SDKs get 429 with Retry-After and stop sending until the period
            ends. Dropped events show on the Usage page as rate limited.
          </p>
          <div class="form-actions">
            <button type="submit" class="btn btn-primary" disabled={busy || !quotas}>
              {busy ? 'Saving…' : 'Save quotas'}
            </button>
          </div>
        </>
      )}
      <FormFeedback error={error} notice={notice} />
    </form>
  );
}
