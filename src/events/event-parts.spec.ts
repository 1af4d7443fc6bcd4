import { joinParts, partRefs, splitParts } from './event-parts';

const payload = () => ({
  message: 'boom',
  sdk: { name: 'sentry.javascript.node', version: '10.0.0', integrations: ['Http', 'Console'] },
  exception: {
    values: [
      { type: 'Cause', value: 'inner', stacktrace: { frames: [{ function: 'a', lineno: 1 }] } },
      { type: 'TypeError', value: 'x is undefined', stacktrace: { frames: [{ function: 'b', lineno: 2 }] } },
      { type: 'NoTrace', value: 'no frames' },
    ],
  },
});

describe('event parts', () => {
  it('replaces stack traces and the SDK by references, and puts them back', () => {
    const original = payload();
    const { payload: stored, parts } = splitParts(original);
    expect(parts.size).toBe(3);
    expect(stored.sdk).toEqual({ $part: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(partRefs(stored)).toHaveLength(3);
    // The caller's object is left as it was.
    expect(original).toEqual(payload());
    const contents = new Map([...parts].map(([hash, json]) => [hash, JSON.parse(json) as unknown]));
    expect(joinParts(stored, contents)).toEqual(payload());
  });

  it('gives the same part the same reference in every event', () => {
    const first = splitParts(payload());
    const second = splitParts({ ...payload(), message: 'another' });
    expect([...second.parts.keys()]).toEqual([...first.parts.keys()]);
  });

  it('leaves payloads without references alone, and empties a slot whose part is gone', () => {
    expect(partRefs(payload())).toEqual([]);
    expect(joinParts(payload(), new Map())).toEqual(payload());
    const { payload: stored } = splitParts(payload());
    expect(joinParts(stored, new Map()).sdk).toBeNull();
  });
});
