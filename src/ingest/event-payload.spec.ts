import { costRatio } from '../../test/helpers/relative-cost';
import { thrownBy } from '../../test/helpers/thrown';
import { EnvelopeError } from './envelope-error';
import { NESTING_SCAN_FROM_BYTES } from '../common/json-nesting';
import { checkEventPayload, MAX_EVENT_NESTING } from './event-payload';

describe('checkEventPayload', () => {
  it('keeps the parsed object and its string event_id', () => {
    const facts = checkEventPayload(' \n{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","message":"hi"}');
    expect(facts.eventId).toBe('9ec79c33ec9942ab8353589fcb2e04dc');
    expect(facts.payload?.message).toBe('hi');
    expect(checkEventPayload('{"event_id":7}').eventId).toBeUndefined();
  });

  it.each([
    ['an array', '[1]'],
    ['a string', '"x"'],
    ['broken JSON', '{"a":'],
    ['an empty text', ''],
    ['null', 'null'],
  ])('rejects %s (400)', (_name, text) => {
    const error = thrownBy(EnvelopeError, () => checkEventPayload(text));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/not a JSON object/);
  });

  it('refuses an event nested deeper than the limit without parsing it', () => {
    const n = 500_000;
    const payload = `{"a":${'['.repeat(n)}${']'.repeat(n)}}`;
    const refuse = () => thrownBy(EnvelopeError, () => checkEventPayload(payload));
    const parsed: string[] = [];
    const parse = JSON.parse;
    const spy = jest.spyOn(JSON, 'parse').mockImplementation((text, reviver) => {
      parsed.push(String(text));
      return parse(text, reviver) as unknown;
    });
    let error: ReturnType<typeof refuse>;
    try {
      error = refuse();
    } finally {
      spy.mockRestore();
    }
    expect(error.status).toBe(400);
    expect(error.message).toBe(`event payload is nested deeper than ${MAX_EVENT_NESTING} levels`);
    expect(parsed).toEqual([]);
    // Refusing it costs a small part of what parsing it would (about a hundredth: V8 parses a
    // megabyte of nesting slowly), both timed here.
    expect(costRatio(refuse, () => JSON.parse(payload), 0.25)).toBeLessThan(0.25);
  });

  it('accepts large events nested as deep as the limit, and small ones nested deeper', () => {
    const pad = `"pad":"${'p'.repeat(NESTING_SCAN_FROM_BYTES)}"`;
    const payload = `{${pad},"a":${'['.repeat(MAX_EVENT_NESTING - 1)}${']'.repeat(MAX_EVENT_NESTING - 1)}}`;
    expect(checkEventPayload(payload).payload?.a).toBeDefined();
    const small = `{"a":${'['.repeat(1000)}${']'.repeat(1000)}}`;
    expect(checkEventPayload(small).payload?.a).toBeDefined();
  });
});
