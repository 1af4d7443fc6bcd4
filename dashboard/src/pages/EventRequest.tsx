import { KeyValue } from '../components';
import { display, isRecord } from '../util';
import { Json, str } from './EventFields';

/** The HTTP request the event happened in: method and URL, query, headers, body, cookies, environment. */
export function EventRequest({ request }: { request: Json }) {
  const method = str(request.method);
  const url = str(request.url);
  const query = request.query_string;
  const queryPairs: [string, string][] =
    typeof query === 'string'
      ? [...new URLSearchParams(query.replace(/^\?/, ''))]
      : Array.isArray(query)
        ? query.filter(Array.isArray).map((pair) => [display(pair[0]), display(pair[1])] as [string, string])
        : isRecord(query)
          ? Object.entries(query).map(([key, value]) => [key, display(value)] as [string, string])
          : [];
  const headers: Json | undefined = Array.isArray(request.headers)
    ? Object.fromEntries(request.headers.filter(Array.isArray).map((pair) => [display(pair[0]), pair[1]]))
    : isRecord(request.headers)
      ? request.headers
      : undefined;
  return (
    <div class="request">
      <p class="request-line mono">
        {method && <strong>{method} </strong>}
        {url ?? <span class="muted">(no URL)</span>}
      </p>
      <h4>Query</h4>
      {queryPairs.length === 0 ? (
        <p class="muted">No query string.</p>
      ) : (
        <KeyValue data={Object.fromEntries(queryPairs)} />
      )}
      <h4>Headers</h4>
      <KeyValue data={headers} empty="No headers." />
      {request.data !== undefined && request.data !== null && request.data !== '' && (
        <>
          <h4>Body</h4>
          {isRecord(request.data) ? <KeyValue data={request.data} /> : <pre class="message-box">{display(request.data)}</pre>}
        </>
      )}
      {request.cookies !== undefined && request.cookies !== null && request.cookies !== '' && (
        <>
          <h4>Cookies</h4>
          {isRecord(request.cookies) ? <KeyValue data={request.cookies} /> : <pre class="message-box">{display(request.cookies)}</pre>}
        </>
      )}
      {isRecord(request.env) && Object.keys(request.env).length > 0 && (
        <>
          <h4>Environment</h4>
          <KeyValue data={request.env} />
        </>
      )}
    </div>
  );
}
