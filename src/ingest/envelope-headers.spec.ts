import { thrownBy } from '../../test/helpers/thrown';
import { EnvelopeError } from './envelope-error';
import { isBlankLine, itemLength, parseEnvelopeHeader, parseItemHeader } from './envelope-headers';

describe('envelope header lines', () => {
  it('reads the envelope header and an item header with its type', () => {
    expect(parseEnvelopeHeader('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}')).toEqual({
      event_id: '9ec79c33ec9942ab8353589fcb2e04dc',
    });
    expect(parseItemHeader('{"type":"event","length":2}')).toEqual({
      header: { type: 'event', length: 2 },
      type: 'event',
    });
  });

  it.each([
    [
      'a non-JSON envelope header',
      () => parseEnvelopeHeader('not json'),
      /envelope header is not valid JSON/,
    ],
    ['an envelope header that is not an object', () => parseEnvelopeHeader('[1,2]'), /not a JSON object/],
    ['a null envelope header', () => parseEnvelopeHeader('null'), /not a JSON object/],
    ['a non-JSON item header', () => parseItemHeader('nope'), /item header is not valid JSON/],
    ['an item header without type', () => parseItemHeader('{"length":2}'), /no type/],
    ['an item header with an empty type', () => parseItemHeader('{"type":""}'), /no type/],
  ])('rejects %s (400)', (_name, run, message) => {
    const error = thrownBy(EnvelopeError, run);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(message);
  });

  it('reads an item length in bytes, absent or null meaning "to the next newline"', () => {
    expect(itemLength({ type: 'event', length: 0 })).toBe(0);
    expect(itemLength({ type: 'event', length: 512 })).toBe(512);
    expect(itemLength({ type: 'event' })).toBeUndefined();
    expect(itemLength({ type: 'event', length: null })).toBeUndefined();
  });

  it.each([-1, 1.5, '12', Number.MAX_SAFE_INTEGER + 1])('rejects the length %p (400)', (length) => {
    const error = thrownBy(EnvelopeError, () => itemLength({ type: 'event', length }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/non-negative/);
  });

  it('counts spaces, tabs and carriage returns as blank, nothing else', () => {
    expect(isBlankLine(Buffer.from(' \t\r'), 0, 3)).toBe(true);
    expect(isBlankLine(Buffer.from('x \r'), 1, 3)).toBe(true);
    expect(isBlankLine(Buffer.from(' x\r'), 0, 3)).toBe(false);
  });
});
