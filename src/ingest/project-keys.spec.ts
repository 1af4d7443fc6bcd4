import { checkKey, ProjectKeyEntry } from './project-keys';

const CURRENT = '11111111-1111-4111-8111-111111111111';
const PREVIOUS = '22222222-2222-4222-8222-222222222222';
const OTHER = '33333333-3333-4333-8333-333333333333';
const EXPIRES = Date.UTC(2026, 0, 1, 12);

describe('checkKey', () => {
  const rotated: ProjectKeyEntry = { key: CURRENT, previousKey: PREVIOUS, previousExpiresAt: EXPIRES };

  it('accepts the current key whatever the time', () => {
    expect(checkKey(rotated, CURRENT, EXPIRES + 86_400_000)).toBe('valid');
    expect(checkKey({ key: CURRENT, previousKey: null, previousExpiresAt: 0 }, CURRENT, EXPIRES)).toBe(
      'valid',
    );
  });

  it('accepts the previous key until its expiry, to the millisecond', () => {
    expect(checkKey(rotated, PREVIOUS, EXPIRES - 3_600_000)).toBe('valid');
    expect(checkKey(rotated, PREVIOUS, EXPIRES - 1)).toBe('valid');
    expect(checkKey(rotated, PREVIOUS, EXPIRES)).toBe('expired');
    expect(checkKey(rotated, PREVIOUS, EXPIRES + 1)).toBe('expired');
  });

  it('leaves other keys and unknown projects to a reload', () => {
    expect(checkKey(rotated, OTHER, EXPIRES - 1)).toBe('unknown');
    expect(checkKey(undefined, CURRENT, EXPIRES)).toBe('unknown');
    // Without a rotation there is no previous key to match, not even a null one.
    expect(checkKey({ key: CURRENT, previousKey: null, previousExpiresAt: 0 }, OTHER, 0)).toBe('unknown');
  });
});
