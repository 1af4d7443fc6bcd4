import { call, client } from '../api';
import { useAsync } from '../components';
import './quotas.css';

const time = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/** Shown on a project's pages while its spike protection is dropping events; nothing otherwise. */
export function SpikeBanner({ projectId }: { projectId: number }) {
  const quotas = useAsync(
    () => call(client.GET('/api/projects/{id}/quotas', { params: { path: { id: projectId } } })),
    [projectId],
  );
  const spike = quotas.data?.current_spike;
  if (!spike) return null;
  return (
    <section class="spike-banner" role="status" aria-labelledby="spike-banner-title">
      <h2 id="spike-banner-title">Spike protection engaged</h2>
      <p>
        Since <strong>{time(spike.started_at)}</strong> this project sent more than{' '}
        <strong>{spike.limit_per_hour.toLocaleString('en')}</strong> events in an hour;{' '}
        <strong>{spike.dropped.toLocaleString('en')}</strong> events were dropped. Events are accepted again when
        the hour ends.
      </p>
      <p class="small">
        <a href={`/projects/${projectId}/settings/quotas`}>Quotas and spike protection</a>
      </p>
    </section>
  );
}
