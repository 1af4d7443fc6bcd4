import * as openid from 'openid-client';
import { emailDomainAllowed, isLoopbackHttp, safeNextPath } from './sso-redirect';

describe('safeNextPath', () => {
  it.each([
    ['/projects/3/issues?query=is%3Aunresolved', '/projects/3/issues?query=is%3Aunresolved'],
    ['/', '/'],
    ['//evil.example/x', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['projects', '/'],
    ['/a\nb', '/'],
    [undefined, '/'],
    [['/a'], '/'],
  ])('%p → %p', (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });
});

describe('isLoopbackHttp', () => {
  it('allows plain http to this machine only', () => {
    expect(isLoopbackHttp(new URL('http://127.0.0.1:4000/'))).toBe(true);
    expect(isLoopbackHttp(new URL('http://localhost/'))).toBe(true);
    expect(isLoopbackHttp(new URL('http://[::1]:8/'))).toBe(true);
    expect(isLoopbackHttp(new URL('http://idp.example/'))).toBe(false);
    expect(isLoopbackHttp(new URL('https://127.0.0.1/'))).toBe(false);
  });
});

describe('emailDomainAllowed', () => {
  it('checks the domain after the last @, in any case', () => {
    expect(emailDomainAllowed('ada@Example.com', ['example.com'])).toBe(true);
    expect(emailDomainAllowed('ada@example.com.evil.test', ['example.com'])).toBe(false);
    expect(emailDomainAllowed('"a@example.com"@evil.test', ['example.com'])).toBe(false);
    expect(emailDomainAllowed('x@anything.test', [])).toBe(true);
  });
});

describe('openid-client', () => {
  it('loads where the tests run (it is an ES module)', () => {
    expect(openid.randomState()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
