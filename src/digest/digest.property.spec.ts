import fc from 'fast-check';
import { fixtureEvent } from '../../test/fixtures/fixtures';
import {
  digestForStorage,
  hostileEvent,
  hostileKey,
  hostileString,
  hostileValue,
  shapeOf,
  toJsonText,
} from '../../test/helpers/hostile-events';
import { costRatio } from '../../test/helpers/relative-cost';
import { MAX_EVENT_BYTES } from '../ingest/envelope-limits';
import { InvalidEventError, LIMITS, parseEventPayload } from './event-normaliser';
import { MAX_STORED_COMPONENTS } from './grouping';

const receivedAt = Date.parse('2026-11-21T02:29:00.000Z');
const context = {
  eventId: 'b216050c-5fa4-4553-abf1-b94b8ddb884c',
  receivedAt,
  sdk: { name: 'x\u0000', version: '\ud800' },
};

/**
 * What digesting a payload may cost, as a multiple of work that is linear in it and measured with it:
 * parsing the same text, plus digesting an ordinary SDK event (the fixed part). Typical payloads
 * cost a few times that; superlinear work on some shape of payload would cost hundreds of times.
 */
const MAX_COST_RATIO = 25;
const ORDINARY_EVENT = toJsonText(fixtureEvent('exception-event'));

function linearYardstick(text: string): void {
  try {
    JSON.parse(text);
  } catch {
    // Refused text costs its parser the same as the digest's.
  }
  JSON.stringify(digestForStorage(ORDINARY_EVENT, context).stored);
}

/** The path from JSON text to the rows PostgreSQL stores, checked against every documented limit. */
function digestsIntoStorableRows(text: string): void {
  let digested!: ReturnType<typeof digestForStorage>;
  const ratio = costRatio(
    () => {
      digested = digestForStorage(text, context);
      JSON.stringify(digested.stored);
    },
    () => linearYardstick(text),
    MAX_COST_RATIO,
  );
  expect(ratio).toBeLessThan(MAX_COST_RATIO);
  const { event, group, stored } = digested;

  const shape = shapeOf(stored);
  expect(shape.problems).toEqual([]);
  expect(shape.longestString).toBeLessThanOrEqual(LIMITS.string);
  expect(shape.longestKey).toBeLessThanOrEqual(256);
  expect(shape.mostKeys).toBeLessThanOrEqual(LIMITS.objectKeys);
  expect(shape.longestArray).toBeLessThanOrEqual(MAX_STORED_COMPONENTS);
  // Nesting depth 8 inside the deepest field that keeps sent data (an exception's mechanism).
  expect(shapeOf(stored.payload).depth).toBeLessThanOrEqual(4 + LIMITS.depth);

  expect(event.message?.length ?? 0).toBeLessThanOrEqual(LIMITS.message);
  expect(event.exception?.values.length ?? 0).toBeLessThanOrEqual(LIMITS.exceptions);
  for (const exception of event.exception?.values ?? []) {
    expect(exception.value?.length ?? 0).toBeLessThanOrEqual(LIMITS.message);
    expect(exception.stacktrace?.frames.length ?? 0).toBeLessThanOrEqual(LIMITS.frames);
  }
  expect(event.breadcrumbs.values.length).toBeLessThanOrEqual(LIMITS.breadcrumbs);
  expect(Object.keys(event.tags).length).toBeLessThanOrEqual(LIMITS.tags);
  const timestamp = Date.parse(event.timestamp);
  expect(timestamp).toBeGreaterThan(0);
  expect(timestamp).toBeLessThanOrEqual(receivedAt + 60_000);

  expect(group.key).toMatch(/^g1:[0-9a-f]{64}$/);
  expect(group.components.length).toBeLessThanOrEqual(MAX_STORED_COMPONENTS);
  expect(group.message.length).toBeLessThanOrEqual(1000);
  expect(group.culprit.length).toBeLessThanOrEqual(512);
  expect(group.type.length).toBeLessThanOrEqual(256);
}

/** Ingest queues any JSON object up to 1 MiB; bigger ones never reach the digest. */
function acceptedByIngest(text: string): boolean {
  return Buffer.byteLength(text) <= MAX_EVENT_BYTES;
}

/** Every place in a real SDK event where a value sits, as a path of keys. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, item]) => pathsOf(item, [...prefix, key]))];
}

function replaceAt(root: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(root) ? [...root] : { ...(root as Record<string, unknown>) }) as Record<
    string | number,
    unknown
  >;
  copy[head] = replaceAt(copy[head], rest, replacement);
  return copy;
}

const realEvents = [fixtureEvent('exception-event'), fixtureEvent('message-event')];
const realPaths = realEvents.flatMap((event, index) =>
  pathsOf(event)
    .filter((path) => path.length > 0)
    .map((path): [number, (string | number)[]] => [index, path]),
);

const anyJson = fc.oneof(
  fc.jsonValue(),
  fc.object({
    key: hostileKey,
    values: [hostileString, fc.double(), fc.integer(), fc.boolean(), fc.constant(null)],
    maxDepth: 4,
  }),
  hostileValue,
);

describe('whatever an SDK sends, the digest stores', () => {
  it('a generated event, every field shaped right or wrong', () => {
    fc.assert(
      fc.property(hostileEvent, (raw) => {
        const text = toJsonText(raw);
        fc.pre(acceptedByIngest(text));
        digestsIntoStorableRows(text);
      }),
      { numRuns: 400 },
    );
  });

  it('a real SDK event with any JSON value in any one place', () => {
    fc.assert(
      fc.property(fc.constantFrom(...realPaths), anyJson, ([index, path], value) => {
        const text = toJsonText(replaceAt(realEvents[index], path, value));
        fc.pre(acceptedByIngest(text));
        digestsIntoStorableRows(text);
      }),
      { numRuns: 1_000 },
    );
  });

  it('any JSON object as the whole payload', () => {
    const fields = Object.keys(realEvents[0]).concat(
      'logentry',
      'message',
      'fingerprint',
      'stacktrace',
      'culprit',
    );
    const key = fc.oneof(hostileKey, fc.constantFrom(...fields));
    fc.assert(
      fc.property(fc.oneof(fc.object({ key, maxDepth: 3 }), fc.dictionary(key, anyJson)), (raw) => {
        const text = toJsonText(raw);
        fc.pre(acceptedByIngest(text));
        digestsIntoStorableRows(text);
      }),
      { numRuns: 300 },
    );
  });

  it('text that is not a JSON object is refused with InvalidEventError, and nothing else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json(), hostileString), (text) => {
        let parsed: Record<string, unknown>;
        try {
          parsed = parseEventPayload(text);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidEventError);
          return;
        }
        digestsIntoStorableRows(JSON.stringify(parsed));
      }),
      { numRuns: 500 },
    );
  });
});
