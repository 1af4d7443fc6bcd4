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
 * byte. Only headers are parsed (envelope-headers.ts); an event payload is checked to be a JSON
 * object (event-payload.ts) and otherwise passed on as the text the SDK sent; the small records are
 * kept within their budgets (small-items.ts); the sizes it reads within are envelope-limits.ts's.
 */

import type { BodySink, ItemStream } from './body-sink';
import { EnvelopeError } from './envelope-error';
import { isBlankLine, itemLength, parseEnvelopeHeader, parseItemHeader } from './envelope-headers';
import { DEFAULT_ENVELOPE_LIMITS, EnvelopeLimits } from './envelope-limits';
import { checkEventPayload, EventPayloadFacts } from './event-payload';
import { isSmallItemType, KeptItem, SmallItems } from './small-items';

const NEWLINE = 0x0a;

/** Item types whose payload is queued for the digest; every other type is accepted and dropped. */
const EVENT_ITEM_TYPES = new Set(['event']);

const enum State {
  EnvelopeHeader,
  ItemHeader,
  PayloadWithLength,
  PayloadToNewline,
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
  readonly smallItems = new SmallItems();
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
  private currentType = '';
  private ended = false;
  /** The stream of one item type (see streamItems), and whether the current payload goes to it. */
  private streamedType?: string;
  private stream?: ItemStream;
  private streaming = false;

  constructor(private readonly limits: EnvelopeLimits = DEFAULT_ENVELOPE_LIMITS) {}

  /** The client report payloads, undefined for one past the budget. */
  get clientReports(): (string | undefined)[] {
    return this.smallItems.ofType('client_report').map((item) => item?.payload);
  }

  /** Hands the payloads of items of `type` to `stream` instead of keeping or skipping them. */
  streamItems(type: string, stream: ItemStream): void {
    this.streamedType = type;
    this.stream = stream;
  }

  /** The small records of one type (see SMALL_ITEM_BUDGETS). */
  itemsOfType(type: string): (KeptItem | undefined)[] {
    return this.smallItems.ofType(type);
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
    if (this.state === State.ItemHeader && this.pendingBytes === 0 && isBlankLine(chunk, start, end)) {
      return; // empty lines between items are tolerated
    }
    const line = this.take(chunk, start, end);
    if (this.state === State.EnvelopeHeader) {
      if (line.trim() === '') throw new EnvelopeError(400, 'envelope header is missing');
      this.header = parseEnvelopeHeader(line);
      this.state = State.ItemHeader;
      return;
    }
    if (line.trim() === '') return;
    const { header: item, type } = parseItemHeader(line);
    if (this.itemTypes.length >= this.limits.maxItems) {
      throw new EnvelopeError(413, `envelope has more than ${this.limits.maxItems} items`);
    }
    this.itemTypes.push(type.length > 64 ? type.slice(0, 64) : type);
    this.onItemType?.(type);
    this.currentType = type;
    this.keeping = EVENT_ITEM_TYPES.has(type) && this.event === undefined;
    this.smallItemHeader = undefined;
    if (!this.keeping && isSmallItemType(type)) {
      this.smallItemHeader = item;
      this.keeping = true;
    }
    if (type === this.streamedType) {
      this.stream!.begin(item);
      this.streaming = true;
    }
    const length = itemLength(item);
    if (length === undefined) {
      this.state = State.PayloadToNewline;
      return;
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
      this.smallItems.keep(this.currentType, { header: smallItemHeader, payload: text });
      return;
    }
    this.eventFacts = checkEventPayload(text);
    this.event = text;
  }

  private smallBudgetLeft(): number {
    return this.smallItems.budgetLeft(this.currentType);
  }

  /** A small record past its type's budget: its bytes are skipped, the record counted as invalid. */
  private skipSmallItem(): void {
    this.keeping = false;
    this.smallItemHeader = undefined;
    this.pending = [];
    this.pendingBytes = 0;
    this.smallItems.skip(this.currentType);
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
