import { call, client } from '../api';
import { useAsync } from '../components';
import { plural, relativeTime } from '../util';
import './quotas.css';

const time = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

const QUOTA_PERIODS = { daily_quota: 'day', monthly_quota: 'month' } as const;

/**
 * Shown on a project's pages while a quota or spike protection refuses its events (ingest answers
 * 429 and SDKs drop them); nothing otherwise. Read from the limiter's state in Redis.
 */
export function QuotaRefusalBanner({ projectId }: { projectId: number }) {
  const refusal = useAsync(
    () => call(client.GET('/api/projects/{id}/quotas/refusal', { params: { path: { id: projectId } } })),
    [projectId],
  );
  const state = refusal.data;
  if (!state?.refusing || !state.reason || !state.until || state.limit === null) return null;
  const again = (
    <>
      accepted again at <strong>{time(state.until)}</strong> ({relativeTime(state.until)})
    </>
  );
  return (
    <section class="refusal-banner" role="status" aria-labelledby="refusal-banner-title">
      {state.reason === 'spike_protection' ? (
        <>
          <h2 id="refusal-banner-title">Spike protection engaged</h2>
          <p>
            {state.since ? (
              <>
                Since <strong>{time(state.since)}</strong> this project
              </>
            ) : (
              'This project'
            )}{' '}
            sent more than <strong>{state.limit.toLocaleString('en')}</strong> events in an hour;{' '}
            <strong>{(state.dropped ?? 0).toLocaleString('en')}</strong> events were dropped. Events are {again}, when the
            hour ends.
          </p>
        </>
      ) : (
        <>
          <h2 id="refusal-banner-title">{state.reason === 'daily_quota' ? 'Daily' : 'Monthly'} quota used up</h2>
          <p>
            {state.since ? (
              <>
                Since <strong>{time(state.since)}</strong>,{' '}
              </>
            ) : null}
            this project's events are refused (429) and dropped by the SDKs: its quota of{' '}
            {plural(state.limit, 'event')} per UTC {QUOTA_PERIODS[state.reason]} is used up. Events are {again}.
          </p>
        </>
      )}
      <p class="small">
        <a href={`/projects/${projectId}/settings/quotas`}>Quotas and spike protection</a>
      </p>
    </section>
  );
}
