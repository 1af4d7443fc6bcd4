import { useState } from 'preact/hooks';
import { AlertType, call, client } from '../api';
import { Badge, Empty, ErrorMessage, Loading, RelTime, useAsync } from '../components';
import { DataTable } from '../lists';
import { ALERT_NAMES } from './AlertRuleForm';

const STATUS_KIND: Record<string, string> = { sent: 'resolved', failed: 'failed', pending: 'pending', skipped: 'muted' };

/** The alerts of the project's rules, newest first: where each went and whether it arrived. */
export function AlertHistory({ projectId }: { projectId: number }) {
  const [limit, setLimit] = useState(50);
  const history = useAsync(
    () => call(client.GET('/api/projects/{projectId}/alert-history', { params: { path: { projectId }, query: { limit } } })),
    [projectId, limit],
  );
  const historyList = Array.isArray(history.data) ? history.data : [];
  return (
    <section aria-labelledby="history-title" class="history">
      <div class="section-head">
        <h2 id="history-title">Alert history</h2>
        <div class="inline-controls">
          <label class="inline-field">
            <span>Show</span>
            <select value={String(limit)} onChange={(e) => setLimit(Number(e.currentTarget.value))}>
              {[20, 50, 100, 500].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <button type="button" class="btn btn-small" onClick={history.reload} disabled={history.loading}>
            Refresh
          </button>
        </div>
      </div>
      <ErrorMessage error={history.error} onRetry={history.reload} />
      {history.loading && !history.data && <Loading label="Loading history…" />}
      {history.data && historyList.length === 0 && <Empty title="No alerts sent yet." />}
      {historyList.length > 0 && (
        <DataTable columns={['Created', 'Type', 'Channel', 'Status', 'Issue or release', 'Sent', 'Error']}>
          {historyList.map((entry) => (
            <tr key={entry.id}>
              <td data-label="Created">
                <RelTime value={entry.created_at} />
              </td>
              <td data-label="Type">{ALERT_NAMES[entry.alert_type as AlertType] ?? entry.alert_type}</td>
              <td data-label="Channel">
                {entry.channel_name} <span class="muted small">({entry.channel_type})</span>
              </td>
              <td data-label="Status">
                <Badge kind={STATUS_KIND[entry.status] ?? 'neutral'}>{entry.status}</Badge>
              </td>
              <td data-label="Issue or release">
                {entry.release ? (
                  <a href={`/projects/${projectId}/releases/${encodeURIComponent(entry.release)}`} class="mono">
                    {entry.release}
                  </a>
                ) : entry.issue_id ? (
                  <a href={`/issues/${entry.issue_id}`} class="mono">
                    {entry.issue_short_id ?? `#${entry.issue_id}`}
                  </a>
                ) : (
                  <span class="muted" title="The issue was deleted">
                    —
                  </span>
                )}
              </td>
              <td data-label="Sent">{entry.sent_at ? <RelTime value={entry.sent_at} /> : <span class="muted">—</span>}</td>
              <td data-label="Error" class="error-text">
                {entry.error ?? ''}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
