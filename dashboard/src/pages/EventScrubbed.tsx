import { isRecord } from '../util';
import type { Json } from './EventFields';

/** In words, per rule of the server's scrubbing (src/privacy/scrubbing/scrub-rules.ts). */
const RULES: Record<string, string> = {
  sensitive_key: 'its key names a secret',
  custom_key: "its key is one of the project's sensitive fields",
  authorization_header: 'Authorization header',
  cookie_header: 'Cookie header',
  session_cookie: 'session cookie',
  credit_card: 'credit card number',
  iban: 'IBAN',
  pem_key: 'PEM private key',
  bearer_token: 'bearer token',
  url_password: 'password in a URL',
  ip_address: 'IP address',
};

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
              <td>{RULES[entry.rule] ?? entry.rule}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {projectId !== null && (
        <p class="small">
          <a href={`/projects/${projectId}/settings#data-protection`}>Data protection settings</a>
        </p>
      )}
    </section>
  );
}
