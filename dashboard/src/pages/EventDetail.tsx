import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call, client, errorMessage } from '../api';
import { Badge, CopyButton, KeyValue, RelTime } from '../components';
import { clockTime, display, exactTime, isRecord, sentence } from '../util';

/** Sentry's context names as people write them: `os` is "OS", `browser` is "Browser". */
const CONTEXT_NAMES: Record<string, string> = { os: 'OS', gpu: 'GPU', client_os: 'Client OS', cloud_resource: 'Cloud resource', otel: 'OpenTelemetry' };
export function contextName(name: string): string {
  return CONTEXT_NAMES[name.toLowerCase()] ?? (name ? name[0].toUpperCase() + name.slice(1).replace(/_/g, ' ') : name);
}

/** The full event is whatever the digest stored: every field is optional and read defensively. */
type Json = Record<string, unknown>;

interface Frame {
  filename?: string;
  abs_path?: string;
  function?: string;
  module?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  pre_context?: string[];
  context_line?: string;
  post_context?: string[];
  vars?: Json;
}

interface ExceptionValue {
  type?: string;
  value?: string;
  module?: string;
  mechanism?: { type?: string; handled?: boolean } & Json;
  stacktrace?: { frames?: Frame[] };
  /** The frames as the SDK sent them, when source maps resolved `stacktrace`. */
  raw_stacktrace?: { frames?: Frame[] };
}

interface ProcessingError {
  type?: string;
  url?: string;
  debug_id?: string;
  detail?: string;
}

/** The file a processing error is about, as people read it: its name, without the host. */
function fileName(url: string | undefined): string {
  if (!url) return 'a file';
  return url.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/^~/, '') || url;
}

/** Why a file's frames stayed minified, in a sentence. */
function processingSentence(error: ProcessingError): string {
  const file = fileName(error.url);
  switch (error.type) {
    case 'js_no_source_map':
      return `No source map was found for ${file}, so its frames show the minified code. Upload the source maps of this release (or build with debug ids) to see the original code.`;
    case 'js_invalid_source_map':
      return `The source map of ${file} could not be read, so its frames show the minified code.`;
    case 'js_invalid_source_map_location':
      return `The source map of ${file} does not match it (it may be the map of another build), so some of its frames show the minified code.`;
    default:
      return error.detail ? sentence(error.detail) : 'Some frames could not be processed and are shown as the SDK sent them.';
  }
}

/**
 * The processing errors worth showing: not those about a file whose frames all have their source
 * lines anyway (the SDK sent them, or another map served), nor any when every frame has one.
 */
function shownProcessingErrors(errors: ProcessingError[], frames: Frame[]): ProcessingError[] {
  const hasSource = (frame: Frame) => typeof frame.context_line === 'string' && frame.context_line !== '';
  if (frames.length > 0 && frames.every(hasSource)) return [];
  return errors.filter((error) => {
    const own = frames.filter((frame) => error.url && (frame.abs_path === error.url || frame.filename === error.url));
    return !(own.length > 0 && own.every(hasSource));
  });
}

function list<T>(value: unknown): T[] {
  if (Array.isArray(value)) return value.filter((item) => item !== null && item !== undefined) as T[];
  if (isRecord(value) && Array.isArray(value.values)) return list<T>(value.values);
  return [];
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function eventMessage(event: Json): string | undefined {
  const message = event.message ?? event.logentry;
  if (typeof message === 'string') return message || undefined;
  if (isRecord(message)) return str(message.formatted) ?? str(message.message);
  return undefined;
}

function Section({ title, children, id }: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class="event-section" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

export function EventDetail({ event }: { event: Json }) {
  const exceptions = list<ExceptionValue>(event.exception);
  const breadcrumbs = list<Json>(event.breadcrumbs);
  const threads = list<Json>(event.threads);
  const topStack = isRecord(event.stacktrace) ? (event.stacktrace as { frames?: Frame[] }) : undefined;
  const tags = normaliseTags(event.tags);
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const request = isRecord(event.request) ? event.request : undefined;
  const user = isRecord(event.user) ? event.user : undefined;
  const sdk = isRecord(event.sdk) ? event.sdk : undefined;
  const message = eventMessage(event);
  const [newestFirst, setNewestFirst] = useState(true);
  const [minified, setMinified] = useState(false);
  const symbolicated = exceptions.some((exception) => isRecord(exception.raw_stacktrace));
  const allFrames = [
    ...exceptions.flatMap((exception) => list<Frame>(exception.stacktrace?.frames)),
    ...(topStack?.frames ?? []),
  ];
  const processingErrors = shownProcessingErrors(list<ProcessingError>(event.errors).filter(isRecord), allFrames);
  const projectId = typeof event.project_id === 'number' ? event.project_id : null;

  const ordered = newestFirst ? [...exceptions].reverse() : exceptions;
  const threadStacks = exceptions.length === 0 ? threads.filter((thread) => isRecord(thread.stacktrace)) : [];

  return (
    <div class="event-detail">
      <dl class="event-facts">
        <Fact label="Event ID" wide>
          <span class="mono event-id">{str(event.id) ?? '—'}</span>
          {str(event.id) && <CopyButton text={str(event.id) as string} label="Copy ID" class="btn-tiny" />}
        </Fact>
        <Fact label="Time" wide>
          {exactTime(event.timestamp) ? (
            <>
              <span class="exact-time">{exactTime(event.timestamp)}</span> <span class="muted small">(<RelTime value={event.timestamp} />)</span>
            </>
          ) : (
            '—'
          )}
        </Fact>
        <Fact label="Level">{str(event.level) ? <Badge kind={`level-${str(event.level)}`}>{str(event.level)}</Badge> : '—'}</Fact>
        <Fact label="Environment">{str(event.environment) ?? '—'}</Fact>
        <Fact label="Release">
          <span class="mono">{str(event.release) ?? '—'}</span>
        </Fact>
        <Fact label="Platform">{str(event.platform) ?? '—'}</Fact>
        {str(event.server_name) && <Fact label="Server">{str(event.server_name)}</Fact>}
        {str(event.transaction) && (
          <Fact label="Transaction">
            <span class="mono">{str(event.transaction)}</span>
          </Fact>
        )}
        <Fact label="SDK">{sdk ? `${str(sdk.name) ?? 'unknown'} ${str(sdk.version) ?? ''}`.trim() : '—'}</Fact>
      </dl>

      {processingErrors.length > 0 && (
        <section class="event-section processing-errors" aria-labelledby="ev-processing">
          <h3 id="ev-processing">Source code not shown</h3>
          <ul>
            {processingErrors.map((error, index) => (
              <li key={index}>
                {processingSentence(error)}
                {(str(error.detail) || str(error.url)) && (
                  <details class="processing-detail">
                    <summary class="small">Technical details</summary>
                    <p class="mono small break-anywhere">
                      {str(error.type) ?? 'error'}: {str(error.detail) ?? ''}
                      {str(error.url) ? ` (${str(error.url)})` : ''}
                    </p>
                  </details>
                )}
              </li>
            ))}
          </ul>
          {projectId !== null && (
            <p class="small">
              <a href={`/projects/${projectId}/source-maps`}>See this project's source maps</a>
            </p>
          )}
        </section>
      )}

      {message && (
        <Section title="Message" id="ev-message">
          <pre class="message-box">{message}</pre>
        </Section>
      )}

      {exceptions.length > 0 && (
        <section class="event-section" aria-labelledby="ev-exception">
          <div class="section-head">
            <h3 id="ev-exception">{exceptions.length > 1 ? `Exceptions (${exceptions.length}, chained)` : 'Exception'}</h3>
            <div class="inline-actions">
              {symbolicated && (
                <div class="segmented small" role="group" aria-label="Frames">
                  <button type="button" class={minified ? 'seg' : 'seg active'} aria-pressed={!minified} onClick={() => setMinified(false)}>
                    Original
                  </button>
                  <button type="button" class={minified ? 'seg active' : 'seg'} aria-pressed={minified} onClick={() => setMinified(true)}>
                    Minified
                  </button>
                </div>
              )}
              <button type="button" class="btn btn-tiny" onClick={() => setNewestFirst(!newestFirst)}>
                {newestFirst ? 'Show oldest call first' : 'Show most recent call first'}
              </button>
            </div>
          </div>
          {ordered.map((exception, index) => (
            <ExceptionBlock key={index} exception={exception} newestFirst={newestFirst} minified={minified} />
          ))}
        </section>
      )}

      {exceptions.length === 0 && topStack && (
        <Section title="Stack trace" id="ev-stack">
          <StackTrace frames={topStack.frames ?? []} newestFirst={newestFirst} />
        </Section>
      )}
      {threadStacks.map((thread, index) => (
        <Section key={index} title={`Thread ${str(thread.name) ?? str(thread.id) ?? index + 1}`} id={`ev-thread-${index}`}>
          <StackTrace frames={((thread.stacktrace as Json).frames as Frame[]) ?? []} newestFirst={newestFirst} />
        </Section>
      ))}

      <Section title={`Breadcrumbs${breadcrumbs.length ? ` (${breadcrumbs.length})` : ''}`} id="ev-breadcrumbs">
        {breadcrumbs.length === 0 ? <p class="muted">No breadcrumbs.</p> : <Breadcrumbs crumbs={breadcrumbs} />}
      </Section>

      <Section title="Tags" id="ev-tags">
        {tags.length === 0 ? (
          <p class="muted">No tags.</p>
        ) : (
          <table class="kv tags">
            <tbody>
              {tags.map(([key, value]) => (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td>{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>

      <div class="event-grid">
        <Section title="User" id="ev-user">
          <KeyValue data={user} empty="No user." />
        </Section>
        <Section title="SDK" id="ev-sdk">
          <KeyValue data={sdk ? { name: sdk.name, version: sdk.version, integrations: sdk.integrations } : undefined} empty="Unknown SDK." />
        </Section>
      </div>

      {request && (
        <Section title="Request" id="ev-request">
          <RequestView request={request} />
        </Section>
      )}

      <Section title="Contexts" id="ev-contexts">
        {Object.keys(contexts).length === 0 ? (
          <p class="muted">No contexts.</p>
        ) : (
          <div class="event-grid">
            {Object.entries(contexts).map(([name, value]) => (
              <div class="context-box" key={name}>
                <h4>{contextName(name)}</h4>
                <KeyValue data={value} />
              </div>
            ))}
          </div>
        )}
      </Section>

      {isRecord(event.extra) && Object.keys(event.extra).length > 0 && (
        <Section title="Additional data" id="ev-extra">
          <KeyValue data={event.extra} />
        </Section>
      )}
      {Array.isArray(event.fingerprint) && event.fingerprint.length > 0 && (
        <Section title="Fingerprint" id="ev-fingerprint">
          <p class="mono small">{event.fingerprint.map(display).join(' · ')}</p>
        </Section>
      )}
      <RawJson event={event} />
    </div>
  );
}

/** The event as the API returns it, folded away until asked for, with a copy button. */
function RawJson({ event }: { event: Json }) {
  const [open, setOpen] = useState(false);
  const text = JSON.stringify(event, null, 2);
  return (
    <section class="event-section" aria-labelledby="ev-raw">
      <div class="section-head">
        <h3 id="ev-raw">Raw JSON</h3>
        <div class="inline-actions">
          <button type="button" class="btn btn-tiny" aria-expanded={open} aria-controls="ev-raw-json" onClick={() => setOpen(!open)}>
            {open ? 'Hide JSON' : 'Show JSON'}
          </button>
          <CopyButton text={text} label="Copy JSON" class="btn-tiny" />
        </div>
      </div>
      {open && (
        <pre id="ev-raw-json" class="raw-json">
          {text}
        </pre>
      )}
    </section>
  );
}

/** Oldest, older, newer and latest event of the issue; the neighbours come with the shown event. */
export function EventNavigation({ issueId, event, onShow }: { issueId: number; event: Json; onShow: (id: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  const previous = str(event.previous_event_id);
  const next = str(event.next_event_id);
  const end = (which: 'oldest' | 'latest') => {
    setError(null);
    const params = { params: { path: { issueId } } };
    const found =
      which === 'oldest'
        ? client.GET('/api/issues/{issueId}/events/oldest', params)
        : client.GET('/api/issues/{issueId}/events/latest', params);
    call(found).then(
      (event) => onShow(event.id),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  };
  return (
    <nav class="event-nav" aria-label="Other events of this issue">
      <button type="button" class="btn btn-tiny" disabled={!previous} onClick={() => end('oldest')}>
        « Oldest
      </button>
      <button type="button" class="btn btn-tiny" disabled={!previous} onClick={() => previous && onShow(previous)}>
        ‹ Older
      </button>
      <button type="button" class="btn btn-tiny" disabled={!next} onClick={() => next && onShow(next)}>
        Newer ›
      </button>
      <button type="button" class="btn btn-tiny" disabled={!next} onClick={() => end('latest')}>
        Latest »
      </button>
      {error && (
        <span class="text-danger small" role="alert">
          {error}
        </span>
      )}
    </nav>
  );
}

function Fact({ label, children, wide }: { label: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <div class={wide ? 'fact fact-wide' : 'fact'}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function normaliseTags(tags: unknown): [string, string][] {
  if (Array.isArray(tags)) {
    return tags
      .map((tag): [string, string] | null => {
        if (Array.isArray(tag) && tag.length >= 2) return [display(tag[0]), display(tag[1])];
        if (isRecord(tag) && 'key' in tag) return [display(tag.key), display(tag.value)];
        return null;
      })
      .filter((tag): tag is [string, string] => tag !== null);
  }
  if (isRecord(tags)) return Object.entries(tags).map(([key, value]) => [key, display(value)]);
  return [];
}

function ExceptionBlock({ exception, newestFirst, minified }: { exception: ExceptionValue; newestFirst: boolean; minified: boolean }) {
  const mechanism = isRecord(exception.mechanism) ? exception.mechanism : undefined;
  const shown = minified && isRecord(exception.raw_stacktrace) ? exception.raw_stacktrace : exception.stacktrace;
  const frames = Array.isArray(shown?.frames) ? shown!.frames! : [];
  return (
    <div class="exception">
      <div class="exception-head">
        <strong class="exception-type">{exception.type ?? 'Error'}</strong>
        {exception.module && <span class="muted small mono"> ({exception.module})</span>}
        {mechanism && (
          <span class="mechanism">
            <Badge kind={mechanism.handled === false ? 'failed' : 'neutral'}>
              {mechanism.handled === false ? 'unhandled' : mechanism.handled === true ? 'handled' : 'mechanism'}
            </Badge>
            {str(mechanism.type) && <span class="muted small"> {str(mechanism.type)}</span>}
          </span>
        )}
      </div>
      {exception.value && (
        <pre class="exception-value" dir="auto">
          {exception.value}
        </pre>
      )}
      {frames.length > 0 ? <StackTrace frames={frames} newestFirst={newestFirst} /> : <p class="muted small">No stack trace.</p>}
    </div>
  );
}

type Group = { kind: 'app'; frame: Frame; index: number } | { kind: 'library'; frames: { frame: Frame; index: number }[] };

export function StackTrace({ frames, newestFirst }: { frames: Frame[]; newestFirst: boolean }) {
  const valid = frames.filter(isRecord) as Frame[];
  const ordered = valid.map((frame, index) => ({ frame, index }));
  if (newestFirst) ordered.reverse();
  // When nothing is marked in-app (older SDKs), every frame is shown: there is nothing to collapse to.
  const anyInApp = valid.some((frame) => frame.in_app === true);
  const groups: Group[] = [];
  for (const item of ordered) {
    if (!anyInApp || item.frame.in_app === true) {
      groups.push({ kind: 'app', ...item });
      continue;
    }
    const last = groups[groups.length - 1];
    if (last && last.kind === 'library') last.frames.push(item);
    else groups.push({ kind: 'library', frames: [item] });
  }
  // The frame where it failed (the newest in-app one) starts expanded.
  const crashing = [...valid.keys()].reverse().find((i) => !anyInApp || valid[i].in_app === true);

  return (
    <div class="stacktrace">
      <p class="stack-order muted small">{newestFirst ? 'Most recent call first' : 'Most recent call last'}</p>
      <ol class="frames">
        {groups.map((group, groupIndex) =>
          group.kind === 'app' ? (
            <FrameRow key={`f${group.index}`} frame={group.frame} initiallyOpen={group.index === crashing} />
          ) : (
            <LibraryFrames key={`g${groupIndex}`} frames={group.frames} />
          ),
        )}
      </ol>
    </div>
  );
}

function LibraryFrames({ frames }: { frames: { frame: Frame; index: number }[] }) {
  const [open, setOpen] = useState(false);
  return (
    <li class="library-group">
      <button type="button" class="btn btn-tiny library-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Hide' : 'Show'} {frames.length} library {frames.length === 1 ? 'frame' : 'frames'}
      </button>
      {open && (
        <ol class="frames nested">
          {frames.map(({ frame, index }) => (
            <FrameRow key={index} frame={frame} initiallyOpen={false} />
          ))}
        </ol>
      )}
    </li>
  );
}

function FrameRow({ frame, initiallyOpen }: { frame: Frame; initiallyOpen: boolean }) {
  const pre = Array.isArray(frame.pre_context) ? frame.pre_context : [];
  const post = Array.isArray(frame.post_context) ? frame.post_context : [];
  const hasContext = typeof frame.context_line === 'string' || pre.length > 0 || post.length > 0;
  const hasVars = isRecord(frame.vars) && Object.keys(frame.vars).length > 0;
  const expandable = hasContext || hasVars;
  const [open, setOpen] = useState(initiallyOpen && expandable);
  const file = frame.filename ?? frame.abs_path ?? frame.module ?? '<unknown>';
  const location = typeof frame.lineno === 'number' ? `:${frame.lineno}${typeof frame.colno === 'number' ? `:${frame.colno}` : ''}` : '';
  const inApp = frame.in_app === true;

  const head = (
    <>
      <span class="frame-file mono">
        {file}
        <span class="frame-line">{location}</span>
      </span>
      {frame.function && (
        <span class="frame-fn">
          {' in '}
          <span class="mono">{frame.function}</span>
        </span>
      )}
      {inApp && <span class="badge badge-app">in app</span>}
    </>
  );

  return (
    <li class={`frame ${inApp ? 'frame-app' : 'frame-lib'}`}>
      {expandable ? (
        <button type="button" class="frame-head" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span class="chevron" aria-hidden="true">{open ? '▾' : '▸'}</span>
          {head}
        </button>
      ) : (
        <div class="frame-head static">
          <span class="chevron" aria-hidden="true" />
          {head}
        </div>
      )}
      {open && hasContext && (
        <div class="context" role="region" aria-label={`Source around ${file}${location}`}>
          <table>
            <tbody>
              {pre.map((line, i) => (
                <SourceLine key={`pre${i}`} number={lineNumber(frame.lineno, i - pre.length)} text={line} />
              ))}
              {typeof frame.context_line === 'string' && <SourceLine number={frame.lineno} text={frame.context_line} current />}
              {post.map((line, i) => (
                <SourceLine key={`post${i}`} number={lineNumber(frame.lineno, i + 1)} text={line} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && hasVars && (
        <details class="frame-vars">
          <summary>Local variables</summary>
          <KeyValue data={frame.vars} />
        </details>
      )}
    </li>
  );
}

function lineNumber(lineno: number | undefined, offset: number): number | undefined {
  return typeof lineno === 'number' ? lineno + offset : undefined;
}

function SourceLine({ number, text, current }: { number?: number; text: string; current?: boolean }) {
  return (
    <tr class={current ? 'current' : undefined} aria-current={current ? 'true' : undefined}>
      <td class="lineno">{number ?? ''}</td>
      <td class="code">
        <pre>{text === '' ? ' ' : text}</pre>
      </td>
    </tr>
  );
}

function Breadcrumbs({ crumbs }: { crumbs: Json[] }) {
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

function RequestView({ request }: { request: Json }) {
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
