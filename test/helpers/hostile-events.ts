/**
 * Generated SDK payloads for property tests: every field of the event, in the shape SDKs send and in
 * shapes nobody should send, with the strings, numbers and keys that break storage (NUL, lone
 * surrogates, `__proto__`, 1e400, deep nesting, sizes on either side of each limit).
 */
import fc from 'fast-check';
import { normaliseEvent, parseEventPayload } from '../../src/digest/event-normaliser';
import { groupEvent } from '../../src/digest/grouping';
import { storedPayload } from '../../src/events/event-payload';

/** What the digest does with an event item's text, and everything of it that reaches PostgreSQL. */
export function digestForStorage(text: string, context: Parameters<typeof normaliseEvent>[1]) {
  const event = normaliseEvent(parseEventPayload(text), context);
  const group = groupEvent(event);
  const stored = {
    payload: storedPayload(event, group),
    columns: [group.type, group.message, group.culprit, event.level, event.environment, event.release],
    user: event.user,
  };
  return { event, group, stored };
}

/** JSON text that `toJsonText` copies verbatim: what `JSON.stringify` cannot produce (1e400, -0, 100k-deep nesting). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify, except that RawJson is copied as is and non-finite numbers become 1e400 / -1e400. */
export function toJsonText(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, parts: string[]): void {
  if (value instanceof RawJson) parts.push(value.text);
  else if (typeof value === 'number') {
    if (Number.isNaN(value)) parts.push('null');
    else if (!Number.isFinite(value)) parts.push(value > 0 ? '1e400' : '-1e400');
    else parts.push(Object.is(value, -0) ? '-0' : JSON.stringify(value));
  } else if (Array.isArray(value)) {
    parts.push('[');
    value.forEach((item, index) => {
      if (index > 0) parts.push(',');
      write(item, parts);
    });
    parts.push(']');
  } else if (value !== null && typeof value === 'object') {
    parts.push('{');
    Object.keys(value).forEach((key, index) => {
      if (index > 0) parts.push(',');
      parts.push(JSON.stringify(key), ':');
      write((value as Record<string, unknown>)[key], parts);
    });
    parts.push('}');
  } else parts.push(JSON.stringify(value) ?? 'null');
}

/** A string of `length` UTF-16 units ending in a surrogate pair: any cut at length - 1 splits it. */
function pairAt(length: number, filler = 'x'): string {
  return `${filler.repeat(Math.max(0, length - 1))}\ud83d\ude00`;
}

/** The lengths the normaliser and grouping cut at, so that every cut may land inside a surrogate pair. */
const CUT_POINTS = [
  63, 64, 127, 128, 199, 200, 255, 256, 511, 512, 999, 1000, 1023, 1024, 8191, 8192, 16383, 16384,
];

const awkwardUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '\u0000',
      '\ud83d\ude00',
      '%',
      '%s',
      '%d',
      '@',
      '.',
      '://',
      '[as ',
      '?',
      '#',
      '\n',
      ' ',
      '-',
      '0x',
      'a',
      '1',
      '{{ default }}',
      '\u2028',
      '\ufeff',
      'é',
    ),
  },
);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.array(awkwardUnit, { maxLength: 40 }).map((units) => units.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '__proto__',
      'constructor',
      'toString',
      'valueOf',
      'prototype',
      'hasOwnProperty',
      '\u0000',
      '\ud800',
      '\udc00',
      'x\ud800y',
      '{{ default }}',
      '{{default}}',
      'null',
      'NaN',
      '-0',
      '1e400',
      'Infinity',
      '%s %d %i %f %r %%s',
      '2026-11-21T02:28:57Z',
      '+275760-09-13T00:00:00.000Z',
      '-271821-04-20T00:00:00.000Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...CUT_POINTS).map((length) => pairAt(length)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('a', 'a.', 'a@', ' ', '1', '-', '\u0000', '\ud800', '%s'),
        fc.integer({ min: 1, max: 20_000 }),
      )
      .map(([unit, times]) => unit.repeat(times)),
  },
);

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', '', '\u0000', '\ud800', pairAt(256)),
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    Infinity,
    -Infinity,
    -0,
    0,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    -(2 ** 53),
    1e11,
    1e15,
    8.64e15,
    8.64e15 + 1,
    1e300,
    5e-324,
    -1,
    0.5,
  ),
);

/** Nesting far past any limit; V8 parses it, but recursive code (String(), JSON.stringify) overflows. */
const deepNesting = fc
  .tuple(
    fc.constantFrom('[', '{"a":'),
    fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 7, max: 64 }) },
      fc.integer({ min: 1_000, max: 100_000 }),
    ),
  )
  .map(([open, depth]) => new RawJson(`${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`));

const leaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** Any JSON value, with awkward keys and leaves; now and then absurdly deep. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.dictionary(hostileKey, tie('value'), { maxKeys: 4 }) },
    { weight: 1, arbitrary: fc.constant({ toString: 1, valueOf: 2 }) },
    { weight: 1, arbitrary: deepNesting },
  ),
})).value;

/** Either the shape SDKs use, or anything at all in its place. */
const shaped = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: hostileValue });

const frame = shaped(
  fc.record(
    {
      filename: shaped(hostileString),
      abs_path: shaped(hostileString),
      function: shaped(hostileString),
      module: shaped(hostileString),
      lineno: shaped(hostileNumber),
      colno: shaped(hostileNumber),
      in_app: shaped(fc.boolean()),
      pre_context: shaped(fc.array(hostileValue, { maxLength: 5 })),
      context_line: shaped(hostileString),
      post_context: shaped(fc.array(hostileValue, { maxLength: 5 })),
      vars: hostileValue,
    },
    { requiredKeys: [] },
  ),
);

const stacktrace = shaped(
  fc.record({ frames: shaped(fc.array(frame, { maxLength: 6 })) }, { requiredKeys: [] }),
);

const exception = shaped(
  fc.record(
    {
      type: shaped(hostileString),
      value: shaped(hostileString),
      module: shaped(hostileString),
      mechanism: hostileValue,
      stacktrace,
    },
    { requiredKeys: [] },
  ),
);

const breadcrumb = shaped(
  fc.record(
    {
      timestamp: shaped(fc.oneof(hostileNumber, hostileString)),
      type: shaped(hostileString),
      category: shaped(hostileString),
      level: shaped(hostileString),
      message: shaped(hostileString),
      data: hostileValue,
    },
    { requiredKeys: [] },
  ),
);

const template = fc.oneof(
  hostileString,
  fc.integer({ min: 1, max: 5_000 }).map((count) => '%s'.repeat(count)),
);

const logentry = shaped(
  fc.record(
    {
      message: shaped(template),
      formatted: shaped(hostileString),
      params: shaped(
        fc.oneof(
          fc.array(hostileValue, { maxLength: 8 }),
          fc
            .integer({ min: 1, max: 2_000 })
            .map((count) => Array.from({ length: count }, () => 'p'.repeat(200))),
        ),
      ),
    },
    { requiredKeys: [] },
  ),
);

const tags = shaped(
  fc.oneof(
    fc.dictionary(hostileKey, hostileValue, { maxKeys: 6 }),
    fc.array(
      fc.oneof(
        fc.tuple(hostileValue, hostileValue),
        fc.record({ key: hostileValue, value: hostileValue }, { requiredKeys: [] }),
        hostileValue,
      ),
      { maxLength: 6 },
    ),
  ),
);

const sdk = shaped(
  fc.record(
    {
      name: shaped(hostileString),
      version: shaped(hostileString),
      integrations: shaped(fc.array(hostileValue, { maxLength: 5 })),
      packages: hostileValue,
    },
    { requiredKeys: [] },
  ),
);

/** A whole event payload: every field the normaliser reads, and a few it does not. */
export const hostileEvent: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    event_id: hostileValue,
    timestamp: shaped(fc.oneof(hostileNumber, hostileString)),
    level: shaped(
      fc.oneof(
        fc.constantFrom('debug', 'info', 'warning', 'warn', 'error', 'fatal', 'critical', 'log'),
        hostileString,
      ),
    ),
    platform: shaped(hostileString),
    logger: shaped(hostileString),
    server_name: shaped(hostileString),
    release: shaped(hostileString),
    dist: shaped(hostileString),
    environment: shaped(hostileString),
    transaction: shaped(hostileString),
    culprit: shaped(hostileString),
    message: shaped(fc.oneof(hostileString, logentry)),
    logentry,
    exception: shaped(
      fc.oneof(
        fc.record({ values: shaped(fc.array(exception, { maxLength: 4 })) }, { requiredKeys: [] }),
        fc.array(exception, { maxLength: 4 }),
      ),
    ),
    stacktrace,
    breadcrumbs: shaped(
      fc.oneof(
        fc.array(breadcrumb, { maxLength: 5 }),
        fc.record({ values: shaped(fc.array(breadcrumb, { maxLength: 5 })) }, { requiredKeys: [] }),
      ),
    ),
    tags,
    contexts: hostileValue,
    request: shaped(
      fc.record(
        { url: shaped(hostileString), method: hostileValue, headers: hostileValue, data: hostileValue },
        { requiredKeys: [] },
      ),
    ),
    user: shaped(
      fc.record(
        {
          id: hostileValue,
          email: hostileValue,
          username: hostileValue,
          ip_address: hostileValue,
          ['__proto__']: hostileValue,
        },
        { requiredKeys: [] },
      ),
    ),
    extra: hostileValue,
    fingerprint: shaped(fc.array(fc.oneof(hostileValue, fc.constant('{{ default }}')), { maxLength: 6 })),
    sdk,
    modules: hostileValue,
    ['__proto__']: hostileValue,
    constructor: hostileValue,
  },
  { requiredKeys: [] },
);

// --- what PostgreSQL stores ---------------------------------------------------------------------------

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` cannot be stored in a PostgreSQL text or jsonb value, or undefined if it can. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains NUL';
  if (LONE_SURROGATE.test(text)) return 'contains a lone surrogate';
  return undefined;
}

export interface Shape {
  /** Every string value and key that PostgreSQL would refuse, with its path. */
  problems: string[];
  /** Deepest nesting of arrays and objects (the value itself counts 1). */
  depth: number;
  longestString: number;
  longestKey: number;
  longestArray: number;
  mostKeys: number;
}

/** Walks a value as JSON.stringify would see it (own enumerable keys, no prototype). */
export function shapeOf(value: unknown): Shape {
  const shape: Shape = {
    problems: [],
    depth: 0,
    longestString: 0,
    longestKey: 0,
    longestArray: 0,
    mostKeys: 0,
  };
  visit(value, '$', 1, shape);
  return shape;
}

function visit(value: unknown, path: string, level: number, shape: Shape): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) shape.problems.push(`${path} ${problem}`);
    shape.longestString = Math.max(shape.longestString, value.length);
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) shape.problems.push(`${path} is ${value}`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  shape.depth = Math.max(shape.depth, level);
  if (Array.isArray(value)) {
    shape.longestArray = Math.max(shape.longestArray, value.length);
    value.forEach((item, index) => visit(item, `${path}[${index}]`, level + 1, shape));
    return;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
    shape.problems.push(`${path} has a prototype of its own`);
  }
  const keys = Object.keys(value);
  shape.mostKeys = Math.max(shape.mostKeys, keys.length);
  for (const key of keys) {
    const problem = textProblem(key);
    if (problem) shape.problems.push(`${path} key ${JSON.stringify(key)} ${problem}`);
    shape.longestKey = Math.max(shape.longestKey, key.length);
    visit((value as Record<string, unknown>)[key], `${path}.${key.slice(0, 40)}`, level + 1, shape);
  }
}
