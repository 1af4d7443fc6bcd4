import { capitalise, sentence } from './util';

describe('server messages as sentences', () => {
  it('capitalises the first letter only', () => {
    expect(capitalise('a viewer cannot triage issues')).toBe('A viewer cannot triage issues');
    expect(capitalise('')).toBe('');
    expect(capitalise('Already capital')).toBe('Already capital');
  });

  it('writes a leading field name in words', () => {
    expect(sentence('retention_days must be an integer from 1 to 3650, or null')).toBe(
      'Retention days must be an integer from 1 to 3650, or null',
    );
    expect(sentence('current_password: wrong password')).toBe('Current password: wrong password');
    // Only a leading identifier: other underscores stay.
    expect(sentence('name must not be empty (see field_name)')).toBe('Name must not be empty (see field_name)');
  });
});
