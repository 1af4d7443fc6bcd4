/**
 * Ingest answers 200 once an event is queued, so whatever the envelope reader accepts must be
 * something the digest can store: an event the worker cannot store is lost after the SDK was told
 * it arrived. Generated envelopes, sliced into arbitrary chunks as a socket delivers them, go through
 * the reader, then through what the worker does with the event item.
 */
import fc from 'fast-check';
import { fixtureEnvelope } from '../../test/fixtures/fixtures';
import {
  hostileEvent,
  hostileString,
  hostileValue,
  shapeOf,
  toJsonText,
} from '../../test/helpers/hostile-events';
import { costRatio } from '../../test/helpers/relative-cost';
import { EnvelopeError } from '../ingest/envelope-error';
import { MAX_EVENT_BYTES } from '../ingest/envelope-limits';
import { EnvelopeReader, readEnvelope } from '../ingest/envelope-reader';
import { normaliseEvent, parseEventPayload } from './event-normaliser';
import { groupEvent } from './grouping';

const EVENT_ID = '9ec79c33ec9942ab8353589fcb2e04dc';

/** A payload and what the item header says about its length. */
const payload = fc.oneof(
  { weight: 3, arbitrary: hostileEvent.map((event) => Buffer.from(toJsonText(event))) },
  { weight: 1, arbitrary: hostileValue.map((value) => Buffer.from(toJsonText(value))) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: hostileString.map((text) => Buffer.from(text)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('{"a":"', '{"message":"', '{'),
        fc.integer({ min: 0, max: MAX_EVENT_BYTES + 10 }),
      )
      .map(([head, size]) => Buffer.from(`${head}${'x'.repeat(size)}"}`)),
  },
);

const itemType = fc.oneof(
  { weight: 4, arbitrary: fc.constant('event') },
  { weight: 2, arbitrary: fc.constantFrom('attachment', 'session', 'client_report', 'transaction') },
  { weight: 1, arbitrary: fc.oneof(hostileString, hostileValue) },
);

type LengthRule = 'exact' | 'none' | 'shorter' | 'longer' | unknown;
const lengthRule: fc.Arbitrary<LengthRule> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('exact', 'none') },
  { weight: 1, arbitrary: fc.constantFrom('shorter', 'longer', -1, 1.5, '12', null, Infinity, 2 ** 53, 0) },
);

const item = fc.record({
  type: itemType,
  length: lengthRule,
  payload,
  extra: fc.oneof(
    { weight: 4, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 }) },
  ),
  after: fc.oneof(
    { weight: 4, arbitrary: fc.constant('\n') },
    { weight: 1, arbitrary: fc.constantFrom('\r\n', '', '\n\n', ' \n') },
  ),
});

const envelopeHeader = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        event_id: fc.oneof(
          { weight: 4, arbitrary: fc.constant(EVENT_ID) },
          { weight: 1, arbitrary: hostileString },
        ),
        sdk: fc.record({ name: fc.string({ maxLength: 20 }), version: fc.string({ maxLength: 10 }) }),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: hostileValue },
);

type Item = typeof item extends fc.Arbitrary<infer T> ? T : never;

function itemBytes(entry: Item): Buffer {
  const header: Record<string, unknown> = { ...entry.extra, type: entry.type };
  const size = entry.payload.length;
  if (entry.length === 'exact') header.length = size;
  else if (entry.length === 'shorter') header.length = Math.max(0, size - 1);
  else if (entry.length === 'longer') header.length = size + 1;
  else if (entry.length !== 'none') header.length = entry.length;
  return Buffer.concat([Buffer.from(`${toJsonText(header)}\n`), entry.payload, Buffer.from(entry.after)]);
}

const envelope = fc
  .tuple(
    envelopeHeader,
    fc.array(item, { maxLength: 5 }),
    fc.oneof(
      { weight: 6, arbitrary: fc.constant('\n') },
      { weight: 1, arbitrary: fc.constantFrom('\r\n', '') },
    ),
  )
  .map(([header, items, afterHeader]) =>
    Buffer.concat([Buffer.from(`${toJsonText(header)}${afterHeader}`), ...items.map(itemBytes)]),
  );

/** Now and then raw garbage, or a valid envelope with a few bytes overwritten. */
const body = fc.oneof(
  { weight: 6, arbitrary: envelope },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 500 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(envelope, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }))
      .map(([bytes, edits]) => {
        const copy = Buffer.from(bytes);
        for (const [at, value] of edits) if (copy.length > 0) copy[at % copy.length] = value;
        return copy;
      }),
  },
);

type Outcome = { status: number; message: string } | { event?: string; itemTypes: string[] };

function read(run: () => EnvelopeReader): Outcome {
  try {
    const reader = run();
    return { event: reader.event, itemTypes: reader.itemTypes };
  } catch (error) {
    if (!(error instanceof EnvelopeError)) throw error;
    expect([400, 413]).toContain(error.status);
    return { status: error.status, message: error.message };
  }
}

function readInChunks(bytes: Buffer, cuts: number[]): EnvelopeReader {
  const reader = new EnvelopeReader();
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  let start = 0;
  for (const point of [...points, bytes.length]) {
    if (point > start) void reader.write(bytes.subarray(start, point));
    start = Math.max(start, point);
  }
  void reader.end();
  return reader;
}

/**
 * What reading a body may cost, as a multiple of work that is linear in it and measured with it:
 * parsing each of its lines as JSON (the most the reader parses), plus reading an ordinary SDK
 * envelope (the fixed part). Typical bodies cost about that; superlinear work on some shape of body
 * would cost hundreds of times.
 */
const MAX_COST_RATIO = 25;
const ORDINARY_ENVELOPE = fixtureEnvelope('exception-event');

function linearYardstick(bytes: Buffer): void {
  for (const line of bytes.toString('utf8').split('\n')) {
    try {
      JSON.parse(line);
    } catch {
      // Most lines of a generated body are not JSON: finding out costs the parser what it costs the reader.
    }
  }
  readEnvelope(ORDINARY_ENVELOPE);
}

describe('envelopes, as a socket delivers them', () => {
  it('are read, or refused with a 400 or 413 EnvelopeError, in linear time and the same way however they are cut', () => {
    fc.assert(
      fc.property(body, fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
        let whole!: Outcome;
        const ratio = costRatio(
          () => (whole = read(() => readEnvelope(bytes))),
          () => linearYardstick(bytes),
          MAX_COST_RATIO,
        );
        expect(ratio).toBeLessThan(MAX_COST_RATIO);
        expect(read(() => readInChunks(bytes, cuts))).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  it('hand an event to the digest only if the digest can store it', () => {
    fc.assert(
      fc.property(body, (bytes) => {
        let event: string | undefined;
        try {
          event = readEnvelope(bytes).event;
        } catch (error) {
          if (error instanceof EnvelopeError) return;
          throw error;
        }
        if (event === undefined) return;
        const normalised = normaliseEvent(parseEventPayload(event), {
          eventId: 'b216050c-5fa4-4553-abf1-b94b8ddb884c',
          receivedAt: Date.now(),
        });
        const group = groupEvent(normalised);
        expect(shapeOf({ ...normalised, title: group.title, components: group.components }).problems).toEqual(
          [],
        );
      }),
      { numRuns: 600 },
    );
  });
});
