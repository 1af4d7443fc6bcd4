import { filterValue, quoteValue, replaceTerm, setFilter, splitTerm, termAt, terms } from './search-query';

describe('search query editing', () => {
  it('splits terms on spaces outside quotes and brackets', () => {
    expect(terms('is:open  browser:"Mobile Safari" level:[error, fatal] "a \\" b" text').map((t) => t.text)).toEqual([
      'is:open',
      'browser:"Mobile Safari"',
      'level:[error, fatal]',
      '"a \\" b"',
      'text',
    ]);
    expect(terms('   ')).toEqual([]);
  });

  it('finds the term under the caret, or an empty one between terms', () => {
    const query = 'is:open lev';
    expect(termAt(query, 11)).toEqual({ start: 8, end: 11, text: 'lev' });
    expect(termAt(query, 3)).toEqual({ start: 0, end: 7, text: 'is:open' });
    expect(termAt('is:open ', 8)).toEqual({ start: 8, end: 8, text: '' });
  });

  it('splits key, value and negation, unquoting the value', () => {
    expect(splitTerm('!release:"1.0 beta"')).toEqual({ negated: true, key: 'release', value: '1.0 beta' });
    expect(splitTerm('user.email:ann@')).toEqual({ negated: false, key: 'user.email', value: 'ann@' });
    expect(splitTerm('level:')).toEqual({ negated: false, key: 'level', value: '' });
    expect(splitTerm('TypeError')).toBeNull();
    expect(splitTerm('"a:b"')).toBeNull();
  });

  it('quotes values the language would split or misread', () => {
    expect(quoteValue('production')).toBe('production');
    expect(quoteValue('eu west')).toBe('"eu west"');
    expect(quoteValue('a,b')).toBe('"a,b"');
    expect(quoteValue('say "hi"')).toBe('"say \\"hi\\""');
    expect(quoteValue('')).toBe('""');
  });

  it('replaces a term, leaving the caret after it and a space unless a value is to follow', () => {
    expect(replaceTerm('is:open lev', { start: 8, end: 11, text: 'lev' }, 'level:')).toEqual({
      query: 'is:open level:',
      caret: 14,
    });
    expect(replaceTerm('is:open level:er', { start: 8, end: 16, text: 'level:er' }, 'level:error')).toEqual({
      query: 'is:open level:error ',
      caret: 20,
    });
    expect(replaceTerm('a b', { start: 0, end: 1, text: 'a' }, 'is:open')).toEqual({ query: 'is:open b', caret: 7 });
  });

  it('sets, replaces and clears one key of a query', () => {
    expect(setFilter('is:open TypeError', 'release', '1.0 beta')).toBe('is:open TypeError release:"1.0 beta"');
    expect(setFilter('release:1 !release:2 is:open', 'release', '3')).toBe('is:open release:3');
    expect(setFilter('release:1 is:open', 'release', null)).toBe('is:open');
    expect(filterValue('is:open release:"1.0 beta"', 'release')).toBe('1.0 beta');
    expect(filterValue('!release:2', 'release')).toBeNull();
  });
});
