import fc from 'fast-check';
import { growth } from '../../test/helpers/relative-cost';
import { LIMITS, normaliseEvent } from './event-normaliser';
import type { NormalisedEvent, StackFrame } from '../events/normalised-event';
import { groupEvent, normaliseFunction, normaliseMessage } from './grouping';

/**
 * Grouping runs on whatever an SDK (or an attacker holding a public DSN) sends, so every pattern in
 * it must run in linear time. These inputs make a backtracking pattern quadratic. Each is grouped at
 * a small size and at eight times that size, up to the length grouping reads (longer input is cut
 * first): linear work grows about eightfold, a quadratic pattern 64-fold. Both sizes are timed in
 * the same test, so a busy machine slows them alike.
 */
const GROWTH = 8;
const MAX_GROWTH = 3 * GROWTH;
/** Module, file and function names are read up to 1,024 characters; messages up to LIMITS.message. */
const NAME_SIZES = [1024 / GROWTH, 1024] as const;
const MESSAGE_SIZES = [LIMITS.message / GROWTH, LIMITS.message] as const;

function fill(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

const UNITS = [
  'a',
  'a@',
  'a.',
  'a-',
  'a+',
  '_',
  '-',
  '.',
  '@',
  '1',
  '1.',
  '-1',
  '1-',
  'f',
  'f1',
  '0a',
  '0x',
  'x:',
  'x:/',
  'x://',
  ' ',
  '\t',
  ' \n',
  '?',
  '#',
  '$1',
  '[as ',
  '[as x',
  ' [as',
  'async ',
  '.a1',
  '-0',
  '2024-01-01T00:00:00.1',
  '1.2.3.',
  'ab12-',
  '\ud83d\ude00',
  '\ud800',
  '%s',
  '{{',
];

type Input = (size: number) => string;

function adversarialInputs(): [string, Input][] {
  const inputs: [string, Input][] = UNITS.map((unit) => [
    `${JSON.stringify(unit)} × n`,
    (size) => fill(unit, size),
  ]);
  inputs.push(
    ["'x://' + '!' × n", (size) => `x://${'!'.repeat(size - 4)}`],
    ["'a' × n + '@'", (size) => `${fill('a', size - 1)}@`],
    ["'a.' × n + '@x'", (size) => `${fill('a.', size - 2)}@x`],
    ["'a@' + 'a.' × n", (size) => `a@${fill('a.', size - 2)}`],
    ["'-' × n + 'a@b'", (size) => `${fill('-', size - 3)}a@b`],
    ["' ' × n + 'x'", (size) => `${fill(' ', size - 1)}x`],
    ["'?' × n + '\\n'", (size) => `${fill('?', size - 1)}\n`],
    ["'.' + 'a' × n + '1'", (size) => `.${fill('a', size - 2)}1`],
    ["'1' × n + 'x'", (size) => `${fill('1', size - 1)}x`],
    ["'1.' + '1' × n + 'x'", (size) => `1.${fill('1', size - 3)}x`],
    ["'0a' × n + 'g'", (size) => `${fill('0a', size - 1)}g`],
    ["'0x' + 'f' × n + 'g'", (size) => `0x${fill('f', size - 3)}g`],
  );
  return inputs;
}

const cases = adversarialInputs();

function eventWithFrame(frame: StackFrame, value = 'boom'): NormalisedEvent {
  const event = normaliseEvent({}, { eventId: 'b216050c-5fa4-4553-abf1-b94b8ddb884c', receivedAt: 0 });
  return { ...event, exception: { values: [{ type: 'Error', value, stacktrace: { frames: [frame] } }] } };
}

/** How much dearer `work` is at the bigger size than at the smaller one. */
function growthOf(work: (input: string) => unknown, input: Input, [small, big]: readonly [number, number]) {
  const smallInput = input(small);
  const bigInput = input(big);
  return growth(
    () => work(smallInput),
    () => work(bigInput),
    MAX_GROWTH,
  );
}

describe('grouping stays linear on hostile input', () => {
  it.each(cases)('normaliseMessage: %s', (_name, input) => {
    expect(growthOf(normaliseMessage, input, MESSAGE_SIZES)).toBeLessThan(MAX_GROWTH);
  });

  it.each(cases)('normaliseFunction: %s', (_name, input) => {
    // Past 1,024 characters the name is cut: both sizes stay within that.
    expect(growthOf(normaliseFunction, input, NAME_SIZES)).toBeLessThan(MAX_GROWTH);
  });

  it.each(cases)('frame file, module and function: %s', (_name, input) => {
    // Built by hand, past the normaliser's clamps: grouping must defend itself.
    const byFile = (text: string) =>
      groupEvent(eventWithFrame({ filename: text, abs_path: text, function: text, in_app: true }));
    const byModule = (text: string) =>
      groupEvent(eventWithFrame({ module: text, function: text, in_app: true }));
    expect(growthOf(byFile, input, NAME_SIZES)).toBeLessThan(MAX_GROWTH);
    expect(growthOf(byModule, input, NAME_SIZES)).toBeLessThan(MAX_GROWTH);
  });

  it.each(cases)('a whole event without frames: %s', (_name, input) => {
    const context = { eventId: 'b216050c-5fa4-4553-abf1-b94b8ddb884c', receivedAt: 0 };
    const whole = (text: string) =>
      groupEvent(
        normaliseEvent(
          { exception: { values: [{ type: 'Error', value: text }] }, message: text, timestamp: text },
          context,
        ),
      );
    expect(growthOf(whole, input, MESSAGE_SIZES)).toBeLessThan(MAX_GROWTH);
  });
});

// --- the same results as before ---------------------------------------------------------------------
// The patterns grouping used up to now, kept here as the oracle: grouping keys must not move, so the
// linear rewrites must agree with them on every input (short inputs, where backtracking is cheap).

const ORIGINAL_MESSAGE_PATTERNS: [RegExp, string][] = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>)]+/gi, '<url>'],
  [/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '<email>'],
  [/\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{1,3}(\.\d{1,3}){3}\b/g, '<ip>'],
  [/\b\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?\b/g, '<date>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  [/-?\b\d+(\.\d+)?\b/g, '<num>'],
];

function originalNormaliseMessage(message: string): string {
  let text = message.trim();
  for (const [pattern, placeholder] of ORIGINAL_MESSAGE_PATTERNS) text = text.replace(pattern, placeholder);
  return text.replace(/\s+/g, ' ').slice(0, 1000);
}

function originalNormaliseFunction(name: string | undefined): string {
  if (!name) return '?';
  return (
    name
      .replace(/\s*\[as [^\]]+\]/g, '')
      .replace(/^(async\s+|new\s+)/, '')
      .replace(/^Object\./, '')
      .replace(/<anonymous>|<anonymous function>/g, '?')
      .replace(/\$\d+\b/g, '')
      .trim() || '?'
  );
}

function originalFrameLocation(frame: StackFrame): string {
  const normaliseFileName = (name: string) =>
    name.replace(/[.-](?=[a-f]*\d)[0-9a-f]{6,}(?=\.|$)/gi, '.<hash>');
  if (frame.module) return normaliseFileName(frame.module);
  const path = (frame.filename ?? frame.abs_path ?? '').replace(/[?#].*$/, '');
  return normaliseFileName(path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1));
}

/** Characters the patterns care about, plus a few they must leave alone. */
const INTERESTING = [
  ...'aAbfFgkxzZ_0189',
  ...'.-+@:/\\?#$[]<>()\'" ',
  '\t',
  '\n',
  '\r',
  '\u2028',
  '\u00a0',
  '\ufeff',
  'http',
  'HTTPS',
  '://',
  'x://',
  '[as ',
  'async ',
  'new ',
  'Object.',
  '<anonymous>',
  '0x',
  'deadbeef',
  '2024-01-02',
  'T10:20:30',
  '.123',
  'Z',
  '+01:00',
  '10.0.0.1',
  '3f1e0c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
  'jane@example.com',
  '@x.y',
  'é',
  '\ud83d\ude00',
  '{{',
  '}}',
  'default',
];
const interestingText = (maxLength: number) =>
  fc.array(fc.constantFrom(...INTERESTING), { maxLength }).map((parts) => parts.join(''));
const anyText = fc.oneof(interestingText(40), fc.string({ unit: 'binary', maxLength: 60 }));

describe('the linear rewrites give the same results as the original patterns', () => {
  it('normaliseMessage', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(normaliseMessage(text)).toBe(originalNormaliseMessage(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('normaliseFunction', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(normaliseFunction(text)).toBe(originalNormaliseFunction(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it('frame locations (module, or file name without query, directories and bundle hash)', () => {
    const frame = fc.record(
      { module: anyText, filename: anyText, abs_path: anyText, function: anyText },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(frame, (raw) => {
        const input: StackFrame = { ...raw, in_app: true };
        const [, component] = groupEvent(eventWithFrame(input)).components;
        const expected = `frame:${originalFrameLocation(input)}:${originalNormaliseFunction(input.function)}`;
        expect(component).toBe(expected);
      }),
      { numRuns: 10_000 },
    );
  });

  it.each([
    ['see https://x.io/a and http://y.io/b?q=1 or mailto:a@b.co', 'see <url> and <url> or mailto:<email>'],
    ['_http://x 1http://x .http://x', '_http://x 1http://x .<url>'],
    ['a.b@c@d.e x+y@z.co.uk, q@w', 'a.b@<email> <email>, q@w'],
    ['a://', 'a://'],
    ['user 42 failed with 0x1f at 2024-01-02T10:20:30Z', 'user <num> failed with <hex> at <date>'],
  ])('%s', (input, expected) => {
    expect(normaliseMessage(input)).toBe(expected);
    expect(originalNormaliseMessage(input)).toBe(expected);
  });
});
