import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { call, client, errorMessage } from '../api';
import { Badge, CopyButton, KeyValue, RelTime } from '../components';
import { display, exactTime, isRecord } from '../util';
import { EventAttachments } from './EventAttachments';
import { EventBreadcrumbs } from './EventBreadcrumbs';
import { contextName, eventMessage, ExceptionValue, Frame, Json, list, normaliseTags, ProcessingError, str } from './EventFields';
import { EventRequest } from './EventRequest';
import { EventScrubbed } from './EventScrubbed';
import { ProcessingErrors, shownProcessingErrors } from './SourceProcessingErrors';
import { ExceptionBlock, StackTrace } from './StackTrace';

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

      <ProcessingErrors errors={processingErrors} projectId={projectId} />

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

      {projectId !== null && str(event.id) && <EventAttachments projectId={projectId} eventId={str(event.id) as string} />}

      <Section title={`Breadcrumbs${breadcrumbs.length ? ` (${breadcrumbs.length})` : ''}`} id="ev-breadcrumbs">
        {breadcrumbs.length === 0 ? <p class="muted">No breadcrumbs.</p> : <EventBreadcrumbs crumbs={breadcrumbs} />}
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
          <EventRequest request={request} />
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
      <EventScrubbed event={event} projectId={projectId} />
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
