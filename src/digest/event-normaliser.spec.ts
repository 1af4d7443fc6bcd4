import { fixtureEvent } from '../../test/fixtures/fixtures';
import { InvalidEventError, normaliseEvent, normaliseTimestamp, parseEventPayload } from './event-normaliser';

const receivedAt = Date.parse('2026-11-21T02:29:00.000Z');
const context = { eventId: 'b216050c-5fa4-4553-abf1-b94b8ddb884c', receivedAt };

describe('parseEventPayload', () => {
  it('rejects text that is not a JSON object', () => {
    expect(() => parseEventPayload('not json')).toThrow(InvalidEventError);
    expect(() => parseEventPayload('[1,2]')).toThrow('event payload is not a JSON object');
    expect(() => parseEventPayload('"text"')).toThrow(InvalidEventError);
    expect(parseEventPayload('{"a":1}')).toEqual({ a: 1 });
  });
});

describe('normaliseEvent', () => {
  it('keeps what matters of a real @sentry/node exception event', () => {
    const event = normaliseEvent(fixtureEvent('exception-event'), context);
    expect(event).toMatchObject({
      event_id: context.eventId,
      timestamp: '2026-11-21T02:28:57.970Z',
      level: 'error',
      platform: 'node',
      environment: 'production',
      release: 'app@1.2.3',
      tags: { region: 'eu' },
      user: { id: 'u1', email: 'a@b.c' },
      sdk: { name: 'sentry.javascript.node', version: '10.78.0' },
      breadcrumbs: {
        values: [
          { category: 'auth', message: 'login', level: 'info', timestamp: '2026-11-21T02:28:57.965Z' },
        ],
      },
    });
    const [exception] = event.exception?.values ?? [];
    expect(exception.type).toBe('TypeError');
    expect(exception.mechanism).toEqual({ type: 'generic', handled: true });
    const crashing = exception.stacktrace?.frames.at(-1);
    expect(crashing).toMatchObject({
      filename: '/srv/app/send.js',
      function: 'deep',
      lineno: 5,
      colno: 24,
      in_app: true,
    });
    expect(crashing?.context_line).toContain('function deep()');
    expect(crashing?.pre_context).toHaveLength(4);
    expect(event.contexts).toHaveProperty('runtime.name', 'node');
    expect(event).not.toHaveProperty('modules');
  });

  it('formats message and logentry', () => {
    expect(normaliseEvent(fixtureEvent('message-event'), context).message).toBe('hello world 123');
    expect(normaliseEvent({ message: { formatted: 'done' } }, context).message).toBe('done');
    expect(
      normaliseEvent({ logentry: { message: 'user %s has %d items', params: ['ann', 3] } }, context).message,
    ).toBe('user ann has 3 items');
  });

  it('accepts exception and breadcrumbs as bare lists and tags as pairs', () => {
    const event = normaliseEvent(
      {
        exception: [{ type: 'E', value: 'v' }],
        breadcrumbs: [{ message: 'a' }, { message: 'b', level: 'warn' }],
        tags: [['a', '1'], ['b', 2], { key: 'c', value: 'x' }],
      },
      context,
    );
    expect(event.exception?.values).toEqual([{ type: 'E', value: 'v' }]);
    expect(event.breadcrumbs.values.map((crumb) => crumb.message)).toEqual(['a', 'b']);
    expect(event.breadcrumbs.values[1].level).toBe('warning');
    expect(event.tags).toEqual({ a: '1', b: '2', c: 'x' });
  });

  it('takes a top-level stacktrace for message events', () => {
    const event = normaliseEvent(
      { message: 'm', stacktrace: { frames: [{ function: 'f', in_app: true }] } },
      context,
    );
    expect(event.exception?.values[0]).toEqual({
      type: null,
      value: null,
      stacktrace: { frames: [{ function: 'f', in_app: true }] },
    });
  });

  it('clamps oversized and hostile input', () => {
    const frames = Array.from({ length: 1000 }, (_, index) => ({ function: `f${index}` }));
    const deep: Record<string, unknown> = {};
    let cursor = deep;
    for (let i = 0; i < 50; i++) cursor = (cursor.next = {}) as Record<string, unknown>;
    const event = normaliseEvent(
      {
        exception: { values: [{ type: 'E\u0000rror', value: 'x'.repeat(100_000), stacktrace: { frames } }] },
        breadcrumbs: Array.from({ length: 500 }, (_, index) => ({ message: `${index}` })),
        extra: { deep },
        level: 'bogus',
      },
      context,
    );
    const exception = event.exception?.values[0];
    expect(exception?.type).toBe('Error');
    expect(exception?.value?.length).toBeLessThanOrEqual(8 * 1024);
    expect(exception?.stacktrace?.frames).toHaveLength(250);
    expect(exception?.stacktrace?.frames[0].function).toBe('f0');
    expect(exception?.stacktrace?.frames.at(-1)?.function).toBe('f999');
    expect(event.breadcrumbs.values).toHaveLength(100);
    expect(event.breadcrumbs.values[0].message).toBe('400');
    expect(JSON.stringify(event.extra)).toContain('[depth limit]');
    expect(event.level).toBe('error');
  });
});

describe('normaliseTimestamp', () => {
  it('reads epoch seconds, RFC 3339 and naive UTC strings', () => {
    expect(normaliseTimestamp(1795228137.976, receivedAt)).toBe('2026-11-21T02:28:57.976Z');
    expect(normaliseTimestamp('2026-11-21T02:28:57.5Z', receivedAt)).toBe('2026-11-21T02:28:57.500Z');
    expect(normaliseTimestamp('2026-11-21T02:28:57', receivedAt)).toBe('2026-11-21T02:28:57.000Z');
    expect(normaliseTimestamp('2026-11-21T03:28:57+01:00', receivedAt)).toBe('2026-11-21T02:28:57.000Z');
  });

  it('falls back to the receive time for missing, invalid or future timestamps', () => {
    const received = new Date(receivedAt).toISOString();
    expect(normaliseTimestamp(undefined, receivedAt)).toBe(received);
    expect(normaliseTimestamp('yesterday', receivedAt)).toBe(received);
    expect(normaliseTimestamp(receivedAt / 1000 + 3600, receivedAt)).toBe(received);
  });
});
