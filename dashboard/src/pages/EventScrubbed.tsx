import { isRecord } from '../util';
import { SCRUBBED_RULE_WORDS } from '../scrub-rule-words';
import type { Json } from './EventFields';

interface Scrubbed {
  path: string;
  rule: string;
}

/** Where the server replaced values by [Filtered] before storing the event, and why; never the values. */
export function EventScrubbed({ event, projectId }: { event: Json; projectId: number | null }) {
  const entries = (Array.isArray(event.scrubbed) ? event.scrubbed : []).filter(
    (entry): entry is Scrubbed =>
      isRecord(entry) && typeof entry.path === 'string' && typeof entry.rule === 'string',
  );
  if (entries.length === 0) return null;
  return (
    <section class="event-section" aria-labelledby="ev-scrubbed">
      <h3 id="ev-scrubbed">Scrubbed before storage</h3>
      <p class="small muted">
        {entries.length === 1 ? 'One value was' : `${entries.length} values were`} replaced by{' '}
        <code>[Filtered]</code>; the originals were never stored.
      </p>
      <table class="kv scrubbed-paths">
        <tbody>
          {entries.map((entry, index) => (
            <tr key={index}>
              <th scope="row" class="mono break-anywhere">
                {entry.path}
              </th>
              <td>{SCRUBBED_RULE_WORDS[entry.rule] ?? entry.rule}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {projectId !== null && (
        <p class="small">
          <a href={`/projects/${projectId}/settings/data-protection`}>Data protection settings</a>
        </p>
      )}
    </section>
  );
}
