import type { Issue } from '../api';
import { call, client } from '../api';
import { useAsync } from '../components';
import { plural } from '../util';
import { ReleaseLink } from './ReleaseFigures';

/** Releases listed on an issue page; an issue seen in more has a link to all its values in its tags. */
const RELEASES_SHOWN = 20;

/**
 * The releases an issue was seen in, each a link to its page: from the issue's tag rollups (the
 * `release` tag), the most events first. Nothing when its events named no release.
 */
export function IssueReleases({ issue }: { issue: Issue }) {
  const releases = useAsync(
    () =>
      call(
        client.GET('/api/issues/{id}/tags/{key}', { params: { path: { id: issue.id, key: 'release' }, query: { limit: RELEASES_SHOWN } } }),
      ).catch(() => undefined),
    [issue.id, issue.event_count],
  );
  const rows = releases.data?.data ?? [];
  if (rows.length === 0) return null;
  return (
    <div class="issue-releases">
      <span class="issue-releases-label">Seen in {plural(rows.length, 'release')}{releases.data?.next_cursor ? ' and more' : ''}:</span>
      <ul class="release-links">
        {rows.map((row) => (
          <li key={row.value}>
            <ReleaseLink projectId={issue.project_id} version={row.value} />{' '}
            <span class="muted small" title={plural(row.count, 'event')}>
              ({row.count.toLocaleString()})
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
