import { scrubbedValues } from './scrubbed-values';

describe('scrubbedValues', () => {
  it('counts values, listing each path once with its rules in order', () => {
    const values = scrubbedValues([
      { path: 'request.headers.Authorization', rule: 'authorization_header' },
      { path: 'extra.database', rule: 'url_password' },
      { path: 'extra.database', rule: 'sensitive_key' },
      { path: 'extra.payment', rule: 'credit_card' },
      { path: 'extra.payment', rule: 'iban' },
      { path: 'extra.payment', rule: 'iban' },
    ]);
    expect(values).toEqual({
      paths: [
        { path: 'request.headers.Authorization', rules: ['authorization_header'] },
        { path: 'extra.database', rules: ['url_password', 'sensitive_key'] },
        { path: 'extra.payment', rules: ['credit_card', 'iban'] },
      ],
      unlisted: 0,
      count: 3,
    });
  });

  it('counts the values past the server’s limit without listing them', () => {
    const values = scrubbedValues([
      { path: 'extra.a', rule: 'sensitive_key' },
      { path: '(12 more)', rule: 'sensitive_key' },
    ]);
    expect(values.paths.map((entry) => entry.path)).toEqual(['extra.a']);
    expect(values.unlisted).toBe(12);
    expect(values.count).toBe(13);
  });

  it('is empty for an event nothing was replaced in', () => {
    expect(scrubbedValues([])).toEqual({ paths: [], unlisted: 0, count: 0 });
  });
});
