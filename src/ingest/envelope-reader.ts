/**
 * Incremental reader for the Sentry envelope format
 * (https://develop.sentry.dev/sdk/data-model/envelopes/):
 *
 *   <envelope header JSON>\n
 *   <item header JSON>\n<payload>\n      (payload is `length` bytes when the item header says so,
 *   <item header JSON>\n<payload>\n       otherwise everything up to the next newline)
 *
 * It is fed decompressed chunks as they arrive, so memory stays bounded: only the header lines, the
 * event item and the small records listed in SMALL_ITEM_BUDGETS (within a budget per envelope) are
 * kept; the payloads of one streamed type (attachments) are handed on to an ItemStream as they
 * arrive, never held; payloads of items the tracker drops (replays, profiles …) are skipped byte by
 * byte. Only headers are parsed; an event payload is checked to be a JSON object and otherwise
 * passed on as the text the SDK sent.
 */

import { jsonNesting, NESTING_SCAN_FROM_BYTES } from '../common/json-nesting';

export const MAX_EVENT_BYTES = 1024 * 1024;
/** Header lines are small JSON objects (event id, sdk, trace context); anything longer is not an envelope. */
export const MAX_HEADER_LINE_BYTES = 16 * 1024;
/**
 * SDKs send an event with a few attachments, or a replay in two items; a thousand items is a
 * flood of item headers to parse, not a report.
 */
export const MAX_ITEMS = 1_000;

const NEWLINE = 0x0a;

/** A malformed (400) or oversized (413) envelope. */
export class EnvelopeError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** Item types whose payload is queued for the digest; every other type is accepted and dropped. */
const EVENT_ITEM_TYPES = new Set(['event']);

/**
 * Item types whose payloads are small records, kept whole for ingest to read, with the bytes an
 * envelope may hold of each type. What an envelope holds of a type beyond its budget is skipped,
 * and each item skipped is recorded as `undefined` (ingest counts it as invalid). Client reports
 * are a few hundred bytes of counts.
 */
export const SMALL_ITEM_BUDGETS: Readonly<Record<string, number>> = {
  client_report: 64 * 1024,
  // A session update is a few hundred bytes; the Node SDK's aggregates a bucket per minute.
  session: 64 * 1024,
  sessions: 64 * 1024,
  // A feedback item is an event (up to the event limit); a user report is a few short fields.
  feedback: MAX_EVENT_BYTES,
  user_report: 64 * 1024,
  // A check-in is a few hundred bytes, its monitor_config included.
  check_in: 64 * 1024,
};
export const MAX_CLIENT_REPORT_BYTES = SMALL_ITEM_BUDGETS.client_report;

/** A small record kept whole: its item header and its payload text. */
export interface KeptItem {
  header: Record<string, unknown>;
  payload: string;
}

export interface EnvelopeLimits {
  maxEventBytes: number;
  maxHeaderLineBytes: number;
  maxItems: number;
}

const DEFAULT_LIMITS: EnvelopeLimits = {
  maxEventBytes: MAX_EVENT_BYTES,
  maxHeaderLineBytes: MAX_HEADER_LINE_BYTES,
  maxItems: MAX_ITEMS,
};

/**
 * Anything that consumes a request body chunk by chunk. `write`/`end` throw to reject the body.
 * `pressure`, asked after each write, may return a promise: the body is paused until it settles
 * (backpressure), and refused if it rejects.
 */
export interface BodySink {
  write(chunk: Buffer): void;
  end(): void;
  pressure?(): Promise<void> | undefined;
}

/**
 * Receives the payloads of one item type as they arrive, without the reader holding them: `begin`
 * with the item header, `data` with each piece, `end` once the payload is complete. Any of them may
 * throw an EnvelopeError to refuse the envelope. `pressure` is asked after every chunk written to
 * the reader: a promise while the stream holds more than it wants (the body waits for it), which
 * rejects if the stream failed.
 */
export interface ItemStream {
  begin(header: Record<string, unknown>): void;
  data(bytes: Buffer): void;
  end(): void;
  pressure(): Promise<void> | undefined;
}

const enum State {
  EnvelopeHeader,
  ItemHeader,
  PayloadWithLength,
  PayloadToNewline,
}

export interface EventPayloadFacts {
  /** The payload's own `event_id`, when it has a string one. */
  eventId?: string;
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
  const eventId = (parsed as { event_id?: unknown }).event_id;
  return { eventId: typeof eventId === 'string' ? eventId : undefined };
}

function firstNonSpace(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0xfeff) return text[i];
  }
  return undefined;
}

function parseHeaderLine(line: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new EnvelopeError(400, `${what} is not valid JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new EnvelopeError(400, `${what} is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function isBlank(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buffer[i];
    if (c !== 0x20 && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}

export class EnvelopeReader implements BodySink {
  /** The envelope header, once its line has been read. */
  header?: Record<string, unknown>;
  /** The first event item's payload text. */
  event?: string;
  /** Facts checked from the event payload. */
  eventFacts?: EventPayloadFacts;
  /** Item types seen, in order (for logs and metrics). */
  readonly itemTypes: string[] = [];
  /** The small records by item type, in order; undefined for one past its type's budget. */
  readonly smallItems = new Map<string, (KeptItem | undefined)[]>();
  /** Called with each item's type as its header is read; may throw to refuse the envelope. */
  onItemType?: (type: string) => void;

  private state = State.EnvelopeHeader;
  /** Bytes of an unfinished header line or event payload that spans chunks. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Payload bytes still to come for an item with `length`. */
  private remaining = 0;
  /** Whether the current payload is kept: the event, or a small record (false: skip its bytes). */
  private keeping = false;
  /** The header of the small record being read, while one is. */
  private smallItemHeader?: Record<string, unknown>;
  /** Bytes each small-record type may still use in this envelope. */
  private readonly smallBytesLeft = new Map<string, number>();
  private currentType = '';
  private ended = false;
  /** The stream of one item type (see streamItems), and whether the current payload goes to it. */
  private streamedType?: string;
  private stream?: ItemStream;
  private streaming = false;

  constructor(private readonly limits: EnvelopeLimits = DEFAULT_LIMITS) {}

  /** The client report payloads, undefined for one past the budget. */
  get clientReports(): (string | undefined)[] {
    return (this.smallItems.get('client_report') ?? []).map((item) => item?.payload);
  }

  /** Hands the payloads of items of `type` to `stream` instead of keeping or skipping them. */
  streamItems(type: string, stream: ItemStream): void {
    this.streamedType = type;
    this.stream = stream;
  }

  /** The small records of one type (see SMALL_ITEM_BUDGETS). */
  itemsOfType(type: string): (KeptItem | undefined)[] {
    return this.smallItems.get(type) ?? [];
  }

  write(chunk: Buffer): void {
    let pos = 0;
    const size = chunk.length;
    while (pos < size) {
      switch (this.state) {
        case State.EnvelopeHeader:
        case State.ItemHeader: {
          const newline = chunk.indexOf(NEWLINE, pos);
          const end = newline === -1 ? size : newline;
          if (this.pendingBytes + end - pos > this.limits.maxHeaderLineBytes) {
            throw new EnvelopeError(400, 'envelope header line is too long');
          }
          if (newline === -1) {
            this.hold(chunk, pos, size);
            pos = size;
          } else {
            this.headerLine(chunk, pos, newline);
            pos = newline + 1;
          }
          break;
        }
        case State.PayloadWithLength: {
          const take = Math.min(this.remaining, size - pos);
          if (this.keeping) this.hold(chunk, pos, pos + take);
          else if (this.streaming) this.stream!.data(chunk.subarray(pos, pos + take));
          this.remaining -= take;
          pos += take;
          if (this.remaining === 0) {
            this.finishPayload();
            // The newline after a sized payload is optional; ItemHeader skips it like an empty line.
            this.state = State.ItemHeader;
          }
          break;
        }
        case State.PayloadToNewline: {
          const newline = chunk.indexOf(NEWLINE, pos);
          const end = newline === -1 ? size : newline;
          if (this.smallItemHeader && this.pendingBytes + end - pos > this.smallBudgetLeft()) {
            this.skipSmallItem();
          }
          if (this.keeping) {
            if (this.pendingBytes + end - pos > this.limits.maxEventBytes) throw this.eventTooLarge();
            this.hold(chunk, pos, end);
          } else if (this.streaming && end > pos) {
            this.stream!.data(chunk.subarray(pos, end));
          }
          if (newline === -1) {
            pos = size;
          } else {
            this.finishPayload();
            this.state = State.ItemHeader;
            pos = newline + 1;
          }
          break;
        }
      }
    }
  }

  /** The item stream's backpressure (see BodySink). */
  pressure(): Promise<void> | undefined {
    return this.stream?.pressure();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    switch (this.state) {
      case State.EnvelopeHeader:
        if (this.pendingBytes === 0) throw new EnvelopeError(400, 'envelope is empty');
        this.headerLine(Buffer.alloc(0), 0, 0);
        break;
      case State.ItemHeader:
        if (this.pendingBytes > 0) {
          this.headerLine(Buffer.alloc(0), 0, 0);
          // An item header on the last line: its payload is empty, which only fits `length: 0` or none.
          const next = this.state as State;
          if (next === State.PayloadWithLength) {
            throw new EnvelopeError(400, 'item length goes past the end of the envelope');
          }
          if (next === State.PayloadToNewline) this.finishPayload();
        }
        break;
      case State.PayloadWithLength:
        throw new EnvelopeError(400, 'item length goes past the end of the envelope');
      case State.PayloadToNewline:
        this.finishPayload();
        break;
    }
    if (!this.header) throw new EnvelopeError(400, 'envelope is empty');
  }

  private hold(chunk: Buffer, start: number, end: number): void {
    if (end <= start) return;
    this.pending.push(chunk.subarray(start, end));
    this.pendingBytes += end - start;
  }

  /** Takes the held bytes plus chunk[start, end) as one string and clears the hold. */
  private take(chunk: Buffer, start: number, end: number): string {
    if (this.pendingBytes === 0) return chunk.toString('utf8', start, end);
    this.hold(chunk, start, end);
    const text = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    return text;
  }

  private headerLine(chunk: Buffer, start: number, end: number): void {
    if (this.state === State.ItemHeader && this.pendingBytes === 0 && isBlank(chunk, start, end)) {
      return; // empty lines between items are tolerated
    }
    const line = this.take(chunk, start, end);
    if (this.state === State.EnvelopeHeader) {
      if (line.trim() === '') throw new EnvelopeError(400, 'envelope header is missing');
      this.header = parseHeaderLine(line, 'envelope header');
      this.state = State.ItemHeader;
      return;
    }
    if (line.trim() === '') return;
    const item = parseHeaderLine(line, 'item header');
    const type = item.type;
    if (typeof type !== 'string' || type === '') throw new EnvelopeError(400, 'item header has no type');
    if (this.itemTypes.length >= this.limits.maxItems) {
      throw new EnvelopeError(413, `envelope has more than ${this.limits.maxItems} items`);
    }
    this.itemTypes.push(type.length > 64 ? type.slice(0, 64) : type);
    this.onItemType?.(type);
    this.currentType = type;
    this.keeping = EVENT_ITEM_TYPES.has(type) && this.event === undefined;
    this.smallItemHeader = undefined;
    if (!this.keeping && Object.hasOwn(SMALL_ITEM_BUDGETS, type)) {
      this.smallItemHeader = item;
      this.keeping = true;
    }
    if (type === this.streamedType) {
      this.stream!.begin(item);
      this.streaming = true;
    }
    const length = item.length;
    if (length === undefined || length === null) {
      this.state = State.PayloadToNewline;
      return;
    }
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
      throw new EnvelopeError(400, 'item length must be a non-negative integer');
    }
    if (this.smallItemHeader && length > this.smallBudgetLeft()) this.skipSmallItem();
    if (this.keeping && length > this.limits.maxEventBytes) throw this.eventTooLarge();
    this.remaining = length;
    if (length === 0) {
      this.finishPayload();
      this.state = State.ItemHeader;
    } else {
      this.state = State.PayloadWithLength;
    }
  }

  private finishPayload(): void {
    if (this.streaming) {
      this.streaming = false;
      this.stream!.end();
    }
    if (!this.keeping) return;
    this.keeping = false;
    const text = this.take(Buffer.alloc(0), 0, 0);
    const smallItemHeader = this.smallItemHeader;
    if (smallItemHeader) {
      this.smallItemHeader = undefined;
      this.smallBytesLeft.set(this.currentType, this.smallBudgetLeft() - Buffer.byteLength(text));
      this.keepSmallItem({ header: smallItemHeader, payload: text });
      return;
    }
    this.eventFacts = checkEventPayload(text);
    this.event = text;
  }

  private smallBudgetLeft(): number {
    return this.smallBytesLeft.get(this.currentType) ?? SMALL_ITEM_BUDGETS[this.currentType];
  }

  private keepSmallItem(item: KeptItem | undefined): void {
    const kept = this.smallItems.get(this.currentType);
    if (kept) kept.push(item);
    else this.smallItems.set(this.currentType, [item]);
  }

  /** A small record past its type's budget: its bytes are skipped, the record counted as invalid. */
  private skipSmallItem(): void {
    this.keeping = false;
    this.smallItemHeader = undefined;
    this.pending = [];
    this.pendingBytes = 0;
    this.keepSmallItem(undefined);
  }

  private eventTooLarge(): EnvelopeError {
    return new EnvelopeError(
      413,
      `${this.currentType} item is larger than ${this.limits.maxEventBytes} bytes`,
    );
  }
}

/** Reads a whole envelope held in memory (tests, tools). */
export function readEnvelope(body: Buffer, limits?: EnvelopeLimits): EnvelopeReader {
  const reader = new EnvelopeReader(limits);
  reader.write(body);
  reader.end();
  return reader;
}
