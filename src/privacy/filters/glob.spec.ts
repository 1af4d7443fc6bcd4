import { compileGlob, GlobSyntaxError } from './glob';

const sensitive = (pattern: string) => compileGlob(pattern, { caseInsensitive: false });
const anyCase = (pattern: string) => compileGlob(pattern, { caseInsensitive: true });

describe('compileGlob', () => {
  it.each([
    ['1.0.*', '1.0.3', true],
    ['1.0.*', '1.0.', true],
    ['1.0.*', '1.1.0', false],
    ['*-beta', '2.4.0-beta', true],
    ['*-beta', '2.4.0-beta.1', false],
    ['staging-*-2024', 'staging-eu-2024', true],
    ['staging-*-2024', 'staging-2024', false],
    ['v?.0', 'v1.0', true],
    ['v?.0', 'v10.0', false],
    ['*', '', true],
    ['**', 'anything', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'acb', false],
    ['*ab*ab*', 'xabyab', true],
    ['*ab*ab*', 'xaby', false],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['\\*literal', '*literal', true],
    ['\\*literal', 'xliteral', false],
    ['a?c*', 'abcdef', true],
  ])('%s against %s: %s', (pattern, text, expected) => {
    expect(sensitive(pattern).matches(text)).toBe(expected);
  });

  it('matches releases in their own case, messages in any', () => {
    expect(sensitive('App@1.*').matches('app@1.2')).toBe(false);
    expect(anyCase('*resizeobserver loop*').matches('Error: ResizeObserver loop limit exceeded')).toBe(true);
    expect(anyCase('TypeError: *fetch*').matches('TypeError: Failed to fetch')).toBe(true);
  });

  it('refuses what does not parse', () => {
    expect(() => sensitive('')).toThrow(GlobSyntaxError);
    expect(() => sensitive('ends with \\')).toThrow(GlobSyntaxError);
    expect(() => sensitive('x'.repeat(201))).toThrow(GlobSyntaxError);
  });
});
