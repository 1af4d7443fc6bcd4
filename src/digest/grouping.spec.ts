import { fixtureEvent } from '../../test/fixtures/fixtures';
import { normaliseEvent } from './event-normaliser';
import type { NormalisedEvent } from '../events/normalised-event';
import { groupEvent, normaliseFunction, normaliseMessage } from './grouping';

const context = {
  eventId: 'b216050c-5fa4-4553-abf1-b94b8ddb884c',
  receivedAt: Date.parse('2026-11-21T02:29:00Z'),
};

function normalise(raw: Record<string, unknown>): NormalisedEvent {
  return normaliseEvent(raw, context);
}

function exceptionEvent(overrides: {
  type?: string;
  value?: string;
  frames?: Record<string, unknown>[];
  fingerprint?: string[];
}): NormalisedEvent {
  return normalise({
    exception: {
      values: [
        {
          type: overrides.type ?? 'TypeError',
          value: overrides.value ?? 'x is undefined',
          stacktrace: {
            frames: overrides.frames ?? [
              { filename: '/srv/app/node_modules/lib/index.js', function: 'run', lineno: 10, in_app: false },
              {
                filename: '/srv/app/src/orders.js',
                module: 'orders',
                function: 'Object.placeOrder',
                lineno: 42,
                in_app: true,
              },
              {
                filename: '/srv/app/src/cart.js',
                module: 'cart',
                function: 'total',
                lineno: 7,
                colno: 3,
                in_app: true,
              },
            ],
          },
        },
      ],
    },
    fingerprint: overrides.fingerprint,
  });
}

describe('groupEvent', () => {
  it('groups the real SDK exception by type and in-app frames, with title and culprit', () => {
    const result = groupEvent(normalise(fixtureEvent('exception-event')));
    expect(result.type).toBe('TypeError');
    expect(result.message).toBe("Cannot read properties of undefined (reading 'x')");
    expect(result.title).toBe("TypeError: Cannot read properties of undefined (reading 'x')");
    expect(result.culprit).toBe('send in deep');
    expect(result.components).toEqual(['type:TypeError', 'frame:send:?', 'frame:send:deep']);
    expect(result.key).toMatch(/^g1:[0-9a-f]{64}$/);
  });

  it('ignores line and column numbers, so moving code does not split an issue', () => {
    const moved = exceptionEvent({
      frames: [
        {
          filename: '/srv/app/src/orders.js',
          module: 'orders',
          function: 'Object.placeOrder',
          lineno: 99,
          in_app: true,
        },
        {
          filename: '/srv/app/src/cart.js',
          module: 'cart',
          function: 'total',
          lineno: 70,
          colno: 12,
          in_app: true,
        },
      ],
    });
    expect(groupEvent(moved).key).toBe(groupEvent(exceptionEvent({})).key);
  });

  it('ignores the message of an exception with frames', () => {
    expect(groupEvent(exceptionEvent({ value: 'y is undefined' })).key).toBe(
      groupEvent(exceptionEvent({})).key,
    );
  });

  it('separates different types and different code paths', () => {
    const base = groupEvent(exceptionEvent({})).key;
    expect(groupEvent(exceptionEvent({ type: 'RangeError' })).key).not.toBe(base);
    const otherPath = exceptionEvent({
      frames: [
        {
          filename: '/srv/app/src/refunds.js',
          module: 'refunds',
          function: 'refund',
          lineno: 42,
          in_app: true,
        },
      ],
    });
    expect(groupEvent(otherPath).key).not.toBe(base);
  });

  it('uses all frames when none is in-app', () => {
    const a = exceptionEvent({ frames: [{ filename: 'lib.js', function: 'a', in_app: false }] });
    const b = exceptionEvent({ frames: [{ filename: 'lib.js', function: 'b', in_app: false }] });
    expect(groupEvent(a).key).not.toBe(groupEvent(b).key);
    expect(groupEvent(a).components).toEqual(['type:TypeError', 'frame:lib.js:a']);
  });

  it('treats bundle hashes in file names as the same file', () => {
    const build1 = exceptionEvent({
      frames: [{ filename: 'https://cdn.example.com/main.3f2a9c1b.js', function: 'go', in_app: true }],
    });
    const build2 = exceptionEvent({
      frames: [{ filename: 'https://cdn.example.com/main.88aa0e12.js?v=2', function: 'go', in_app: true }],
    });
    expect(groupEvent(build1).key).toBe(groupEvent(build2).key);
  });

  it('groups exceptions without frames by type and normalised message', () => {
    const a = exceptionEvent({ value: 'order 1234 not found', frames: [] });
    const b = exceptionEvent({ value: 'order 98 not found', frames: [] });
    const c = exceptionEvent({ value: 'customer 98 not found', frames: [] });
    expect(groupEvent(a).key).toBe(groupEvent(b).key);
    expect(groupEvent(a).key).not.toBe(groupEvent(c).key);
  });

  it('groups message events by their normalised message', () => {
    const message = normalise(fixtureEvent('message-event'));
    const result = groupEvent(message);
    expect(result.type).toBe('Message');
    expect(result.message).toBe('hello world 123');
    expect(result.components).toEqual(['type:Message', 'message:hello world <num>']);
    const other = normalise({ message: 'hello world 456' });
    expect(groupEvent(other).key).toBe(result.key);
    expect(groupEvent(normalise({ message: 'goodbye world 456' })).key).not.toBe(result.key);
  });

  it('lets a custom fingerprint override grouping', () => {
    const a = exceptionEvent({ fingerprint: ['payment-gateway-timeout'] });
    const b = exceptionEvent({ type: 'RangeError', fingerprint: ['payment-gateway-timeout'] });
    expect(groupEvent(a).key).toBe(groupEvent(b).key);
    expect(groupEvent(a).key).not.toBe(groupEvent(exceptionEvent({})).key);
  });

  it('expands {{ default }} inside a fingerprint', () => {
    const eu = exceptionEvent({ fingerprint: ['{{ default }}', 'eu'] });
    const us = exceptionEvent({ fingerprint: ['{{default}}', 'us'] });
    expect(groupEvent(eu).components).toEqual([...groupEvent(exceptionEvent({})).components, 'fp:eu']);
    expect(groupEvent(eu).key).not.toBe(groupEvent(us).key);
    expect(groupEvent(exceptionEvent({ fingerprint: ['{{ default }}'] })).key).toBe(
      groupEvent(exceptionEvent({})).key,
    );
  });
});

describe('normaliseMessage', () => {
  it.each([
    ['user 42 failed', 'user <num> failed'],
    ['id 3f1e0c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b missing', 'id <uuid> missing'],
    ['mail to jane.doe@example.com bounced', 'mail to <email> bounced'],
    ['GET https://api.example.com/v1/users/7?x=1 failed', 'GET <url> failed'],
    ['pointer 0xdeadbeef freed', 'pointer <hex> freed'],
    ['commit 9fceb02d0ae598e95dc970b74767f19372d61af8 bad', 'commit <hex> bad'],
    ['from 10.0.0.12 at 2026-11-21T02:28:58.005Z', 'from <ip> at <date>'],
    ['took 1.5 s', 'took <num> s'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseMessage(input)).toBe(expected);
  });
});

describe('normaliseFunction', () => {
  it.each([
    ['Object.placeOrder', 'placeOrder'],
    ['Function.executeUserEntryPoint [as runMain]', 'Function.executeUserEntryPoint'],
    ['async handler', 'handler'],
    ['<anonymous>', '?'],
    [undefined, '?'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseFunction(input)).toBe(expected);
  });
});
