/**
 * The check an event payload passes before it is queued, in an envelope's event item or a store
 * request's body: a JSON object, not nested too deeply. It is otherwise passed on as the text the
 * SDK sent.
 */
import { jsonNesting, NESTING_SCAN_FROM_BYTES } from '../common/json-nesting';
import { EnvelopeError } from './envelope-error';

export interface EventPayloadFacts {
  /** The payload's own `event_id`, when it has a string one. */
  eventId?: string;
  /**
   * The parsed payload, for the inbound filters to read (not parsed again); ingest lets go of it
   * once they have, so that it does not outlive the request's first milliseconds.
   */
  payload?: Record<string, unknown>;
}

/**
 * Real events nest a few levels (contexts, extra data); the digest keeps 8. Deeper JSON is refused
 * before it is parsed: V8 takes over 100 ms to parse a megabyte of `[[[[…`, in the api and again
 * in the worker, against 2.5 ms for a flat megabyte.
 */
export const MAX_EVENT_NESTING = 128;

/**
 * An event payload must be a JSON object. The first-character test rejects most garbage for free;
 * JSON.parse then proves it (≈10 µs for a typical 5 KB event, measured in bench/ingest.ts runs).
 */
export function checkEventPayload(text: string): EventPayloadFacts {
  let parsed: unknown;
  const first = firstNonSpace(text);
  if (first === '{') {
    if (text.length >= NESTING_SCAN_FROM_BYTES && jsonNesting(text, MAX_EVENT_NESTING) > MAX_EVENT_NESTING) {
      throw new EnvelopeError(400, `event payload is nested deeper than ${MAX_EVENT_NESTING} levels`);
    }
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new EnvelopeError(400, 'event payload is not a JSON object');
  }
  const payload = parsed as Record<string, unknown>;
  const eventId = payload.event_id;
  return { eventId: typeof eventId === 'string' ? eventId : undefined, payload };
}

function firstNonSpace(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0xfeff) return text[i];
  }
  return undefined;
}
