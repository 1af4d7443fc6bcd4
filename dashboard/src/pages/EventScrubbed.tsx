import { isRecord } from '../util';
import { SCRUBBED_RULE_WORDS } from '../scrub-rule-words';
import { ScrubbedPair, scrubbedValues } from '../scrubbed-values';
import type { Json } from './EventFields';

/**
 * Where the server replaced values by [Filtered] before storing the event, and why; never the
 * values. A value matched by several rules is one value, on one row with each rule.
 */
export function EventScrubbed({ event, projectId }: { event: Json; projectId: number | null }) {
  const pairs = (Array.isArray(event.scrubbed) ? event.scrubbed : []).filter(
    (entry): entry is ScrubbedPair =>
      isRecord(entry) && typeof entry.path === 'string' && typeof entry.rule === 'string',
  );
  const { paths, unlisted, count } = scrubbedValues(pairs);
  if (count === 0) return null;
  return (
    <section class="event-section" aria-labelledby="ev-scrubbed">
      <h3 id="ev-scrubbed">Scrubbed before storage</h3>
      <p class="small muted">
        {count === 1 ? 'One value was' : `${count} values were`} replaced by <code>[Filtered]</code>; the
        originals were never stored.
      </p>
      <table class="kv scrubbed-paths">
        <tbody>
          {paths.map((entry) => (
            <tr key={entry.path}>
              <th scope="row" class="mono break-anywhere">
                {entry.path}
              </th>
              <td>{entry.rules.map((rule) => SCRUBBED_RULE_WORDS[rule] ?? rule).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {unlisted > 0 && (
        <p class="small muted">
          {unlisted === 1 ? 'One more value was' : `${unlisted} more values were`} replaced, past the{' '}
          {paths.length} paths an event records.
        </p>
      )}
      {projectId !== null && (
        <p class="small">
          <a href={`/projects/${projectId}/settings/data-protection`}>Data protection settings</a>
        </p>
      )}
    </section>
  );
}
