import { useState } from 'preact/hooks';
import { Badge } from '../components';
import { clockTime, display, exactTime, isRecord } from '../util';
import { Json, str } from './EventFields';

/** The event's breadcrumbs, oldest first like a log: the last 30 unless all are asked for. */
export function EventBreadcrumbs({ crumbs }: { crumbs: Json[] }) {
  const [showAll, setShowAll] = useState(false);
  const LIMIT = 30;
  // Oldest first, like a log; the newest (closest to the error) at the bottom.
  const shown = showAll ? crumbs : crumbs.slice(-LIMIT);
  return (
    <>
      {crumbs.length > LIMIT && (
        <button type="button" class="btn btn-tiny" onClick={() => setShowAll(!showAll)}>
          {showAll ? `Show the last ${LIMIT} only` : `Show all ${crumbs.length} breadcrumbs`}
        </button>
      )}
      <ol class="timeline">
        {shown.map((crumb, index) => {
          const level = str(crumb.level) ?? 'info';
          const data = isRecord(crumb.data) && Object.keys(crumb.data).length > 0 ? crumb.data : undefined;
          return (
            <li key={index} class={`crumb crumb-${level}`}>
              <span class="crumb-time mono" title={exactTime(crumb.timestamp)}>
                {clockTime(crumb.timestamp) || '—'}
              </span>
              <span class="crumb-cat">
                <strong>{str(crumb.category) ?? str(crumb.type) ?? 'default'}</strong>
                {str(crumb.type) && str(crumb.category) && <span class="muted small"> {str(crumb.type)}</span>}
              </span>
              <span class="crumb-level">
                <Badge kind={`level-${level}`}>{level}</Badge>
              </span>
              <span class="crumb-body">
                {str(crumb.message) && <span class="crumb-message">{str(crumb.message)}</span>}
                {data && (
                  <span class="crumb-data mono small">
                    {Object.entries(data)
                      .map(([key, value]) => `${key}: ${display(value)}`)
                      .join('  ·  ')}
                  </span>
                )}
              </span>
            </li>
          );
        })}
      </ol>
    </>
  );
}
