import { createHash } from 'node:crypto';
import { digestForStorage, shapeOf, textProblem, toJsonText } from '../../test/helpers/hostile-events';
import { costRatio, growth } from '../../test/helpers/relative-cost';
import { LIMITS, normaliseTimestamp } from './event-normaliser';
import { GroupingResult, MAX_STORED_COMPONENTS } from './grouping';

const receivedAt = Date.parse('2026-11-21T02:29:00.000Z');
const context = { eventId: 'b216050c-5fa4-4553-abf1-b94b8ddb884c', receivedAt };
const EMOJI = '\ud83d\ude00';

/** What the digest does with an event item's text, and everything of it that reaches PostgreSQL. */
function digest(payload: Record<string, unknown> | string) {
  return digestForStorage(typeof payload === 'string' ? payload : toJsonText(payload), context);
}

function expectStorable(stored: ReturnType<typeof digest>['stored']): void {
  expect(shapeOf(stored).problems).toEqual([]);
  expect(() => JSON.stringify(stored)).not.toThrow();
}

describe('logentry parameters', () => {
  it('are cleaned like the rest of the payload (NUL, lone surrogates)', () => {
    const { event, stored } = digest({
      logentry: { message: 'user %s said %s', params: ['ann\u0000', 'x\ud800y'] },
    });
    expect(event.message).toBe('user ann said x\ufffdy');
    expectStorable(stored);
  });

  it('never substitute half of a surrogate pair next to the other half', () => {
    const { stored } = digest({ logentry: { message: `a\ud83d%s`, params: ['\ude00b', 1] } });
    expectStorable(stored);
  });

  it('may be objects, arrays or absurdly nested, and are shown as String() shows them', () => {
    const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
    const text = `{"logentry":{"message":"%s|%s|%s|%s|%s|%s","params":[{"toString":1,"valueOf":2},[1,[2,null],"x\\u0000"],${deep},null,true,1e400]}}`;
    const { event, stored } = digest(text);
    expect(event.message).toMatch(/^\[object Object\]\|1,2,,x\|.*\|null\|true\|Infinity$/);
    expectStorable(stored);
  });

  it('cannot blow the message up past its limit', () => {
    const params = Array.from({ length: 4000 }, () => 'p'.repeat(1000));
    const { event } = digest({ logentry: { message: '%s'.repeat(4000), params } });
    expect(event.message?.length).toBeLessThanOrEqual(LIMITS.message);
    const objects = digest({
      logentry: {
        message: '%s'.repeat(4000),
        params: Array.from({ length: 4000 }, () => [Array(300).fill('q')]),
      },
    });
    expect(objects.event.message?.length).toBeLessThanOrEqual(LIMITS.message);
  });
});

describe('values that String() or JSON.stringify() cannot handle', () => {
  const hostile = '{"toString":1,"valueOf":2}';
  const deep = `${'['.repeat(50_000)}"x"${']'.repeat(50_000)}`;

  it.each([
    ['a tag value', `{"tags":{"a":${deep},"b":${hostile}}}`],
    ['a tag pair value', `{"tags":[["a",${deep}]]}`],
    ['a fingerprint part', `{"fingerprint":[${hostile},${deep},"x"]}`],
    ['a user field', `{"user":{"id":${hostile},"email":${deep},"username":[1,2]}}`],
    ['a user field behind __proto__', `{"user":{"__proto__":{"id":${hostile}}}}`],
    [
      'a context line',
      `{"exception":{"values":[{"stacktrace":{"frames":[{"pre_context":[${hostile},${deep}]}]}}]}}`,
    ],
    ['an SDK integration', `{"sdk":{"name":"x","integrations":[${hostile},${deep}]}}`],
  ])('%s', (_name, text) => {
    expectStorable(digest(text).stored);
  });
});

describe('keys', () => {
  it('keep __proto__ as an ordinary key, without changing any prototype', () => {
    const { event, stored } = digest(
      '{"extra":{"__proto__":{"polluted":1}},"tags":{"__proto__":"t"},"user":{"__proto__":{"id":"u"},"id":"real"},"contexts":{"a":{"__proto__":[1]}}}',
    );
    expect(JSON.parse(JSON.stringify(event.extra))).toEqual(JSON.parse('{"__proto__":{"polluted":1}}'));
    expect(Object.keys(event.tags)).toEqual(['__proto__']);
    expect(event.user?.id).toBe('real');
    expectStorable(stored);
  });

  it('lose NUL and lone surrogates, and are never cut inside a surrogate pair', () => {
    const long = `${'k'.repeat(255)}${EMOJI}`;
    const { stored } = digest({
      extra: { 'a\u0000b': 1, '\ud800': 2, [long]: 3 },
      tags: { [`${'t'.repeat(199)}${EMOJI}`]: `${'v'.repeat(199)}${EMOJI}`, 'x\u0000': '\ud800' },
    });
    expectStorable(stored);
  });
});

describe('cuts never leave half of a surrogate pair', () => {
  it.each([
    [
      'an exception value',
      (s: string) => ({ exception: { values: [{ type: 'E', value: s }] } }),
      LIMITS.message,
    ],
    ['a message', (s: string) => ({ message: s }), LIMITS.message],
    ['an extra string', (s: string) => ({ extra: { s } }), LIMITS.string],
    ['a platform', (s: string) => ({ platform: s }), 64],
    ['an exception type', (s: string) => ({ exception: [{ type: s }] }), 256],
    ['a fingerprint part', (s: string) => ({ fingerprint: [s] }), 512],
    ['a context line', (s: string) => ({ stacktrace: { frames: [{ context_line: s }] } }), 1024],
    ['a pre_context line', (s: string) => ({ stacktrace: { frames: [{ pre_context: [s] }] } }), 1024],
    ['a breadcrumb message', (s: string) => ({ breadcrumbs: [{ message: s }] }), LIMITS.message],
  ])('%s', (_name, build, limit) => {
    for (const at of [limit - 2, limit - 1, limit, limit + 1]) {
      expectStorable(digest(build(`${'x'.repeat(at)}${EMOJI}${'y'.repeat(10)}`)).stored);
    }
  });

  it.each([998, 999, 1000])('the issue message and title (pair at %i)', (at) => {
    const value = `${'x'.repeat(at)}${EMOJI}${'y'.repeat(10)}`;
    const { group, stored } = digest({ exception: [{ type: 'E', value }] });
    expect(textProblem(group.message)).toBeUndefined();
    expect(textProblem(group.title)).toBeUndefined();
    expectStorable(stored);
  });

  it('keeps the grouping key it always had: the half is hashed as U+FFFD either way', () => {
    const value = `${'x'.repeat(999)}${EMOJI}`;
    const { group } = digest({ message: value });
    const expected = createHash('sha256')
      .update(`g1\ntype:Message\nmessage:${'x'.repeat(999)}\ud83d`)
      .digest('hex');
    expect(group.key).toBe(`g1:${expected}`);
    expect(group.components[1]).toBe(`message:${'x'.repeat(999)}\ufffd`);
  });

  it.each([510, 511, 512])('the culprit (pair at %i)', (at) => {
    const frames = [{ module: 'm'.repeat(at - 4), function: `${EMOJI}f`, in_app: true }];
    const { group, stored } = digest({ exception: [{ type: 'E', stacktrace: { frames } }] });
    expect(group.culprit.length).toBeLessThanOrEqual(512);
    expect(textProblem(group.culprit)).toBeUndefined();
    expectStorable(stored);
  });
});

describe('grouping components', () => {
  function withFingerprint(fingerprint: string[]): GroupingResult {
    const frames = Array.from({ length: 300 }, (_, index) => ({
      module: `m${index}`.padEnd(500, 'm'),
      function: `f${index}`.padEnd(500, 'f'),
      in_app: true,
    }));
    return digest({ exception: [{ type: 'E', stacktrace: { frames } }], fingerprint }).group;
  }

  it('are stored up to a limit, while all of them are hashed', () => {
    const many = withFingerprint(Array(32).fill('{{ default }}'));
    expect(many.components).toHaveLength(MAX_STORED_COMPONENTS);
    expect(many.key).not.toBe(withFingerprint(Array(31).fill('{{ default }}')).key);
    expect(withFingerprint(['{{ default }}']).components).toHaveLength(251);
  });
});

describe('numbers and timestamps', () => {
  it('survive 1e400, -0 and out-of-range integers anywhere', () => {
    const text =
      '{"timestamp":1e400,"level":1e400,"tags":{"a":1e400,"b":-0},"extra":{"n":-1e400,"z":-0},' +
      '"stacktrace":{"frames":[{"lineno":1e400,"colno":-0,"function":"f","in_app":true},{"lineno":4294967296,"colno":"12"}]},' +
      '"breadcrumbs":[{"timestamp":-1e400}],"fingerprint":[1e400,-0]}';
    const { event, stored } = digest(text);
    const [first, second] = event.exception?.values[0].stacktrace?.frames ?? [];
    expect(first).not.toHaveProperty('lineno');
    expect(first.colno).toBe(0);
    expect(second).not.toHaveProperty('lineno');
    expect(event.timestamp).toBe(new Date(receivedAt).toISOString());
    expectStorable(stored);
  });

  /** What an SDK's timestamp costs, as the yardstick for what a hostile one may cost. */
  const ordinary = () => normaliseTimestamp('2026-11-21T02:28:57.123456Z', receivedAt);

  it.each([
    ['a huge string', 'x'.repeat(1_000_000)],
    ['a long valid-looking prefix', `2026-11-21T02:28:57${'0'.repeat(100_000)}Z`],
    ['a far future date', '+275760-09-13T00:00:00.000Z'],
    ['a far past date', '-271821-04-20T00:00:00.000Z'],
    ['a far future number', 8.64e15],
    ['epoch milliseconds past the range of dates', 1e300],
  ])('fall back to the receive time for %s, at about the cost of an ordinary timestamp', (_name, value) => {
    expect(normaliseTimestamp(value, receivedAt)).toBe(new Date(receivedAt).toISOString());
    // Long strings are not read at all: reading one would cost thousands of times more.
    expect(costRatio(() => normaliseTimestamp(value, receivedAt), ordinary, 10)).toBeLessThan(10);
  });
});

describe('size', () => {
  /** An event of `count` empty frames: 300,000 of them make 1 MiB. */
  const frames = (count: number) => `{"stacktrace":{"frames":[${Array(count).fill('{}').join(',')}]}}`;

  it('normalises a 1 MiB event of empty frames in time linear in its size', () => {
    const big = frames(300_000);
    const small = frames(300_000 / 8);
    expect(digest(big).event.exception?.values[0].stacktrace?.frames).toHaveLength(LIMITS.frames);
    // Eight times the frames, about eight times the work (parsing them); a quadratic step would make
    // it 64 times. Both timed here, a few times each, so that a busy machine slows both alike.
    expect(
      growth(
        () => digest(small),
        () => digest(big),
        24,
        5,
      ),
    ).toBeLessThan(24);
  });
});
