import { CompiledInboundFilters, InboundFilterSettings, NO_INBOUND_FILTERS } from './inbound-filters';
import { compileIpRanges, IpRangeSyntaxError, parseIpRange } from './ip-ranges';
import { USER_AGENTS as UA } from './user-agents.fixtures';

const filters = (change: Partial<InboundFilterSettings>) =>
  new CompiledInboundFilters({ ...NO_INBOUND_FILTERS, ...change });

const browserEvent = (userAgent: string, extra: Record<string, unknown> = {}) => ({
  platform: 'javascript',
  request: { url: 'https://shop.example.com/cart', headers: { 'User-Agent': userAgent } },
  ...extra,
});

const thrownFrom = (absPath: string, value = 'boom') => ({
  exception: {
    values: [
      {
        type: 'TypeError',
        value,
        stacktrace: { frames: [{ abs_path: 'https://shop.example.com/app.js' }, { abs_path: absPath }] },
      },
    ],
  },
});

describe('CompiledInboundFilters', () => {
  it('filters nothing with every filter off', () => {
    expect(filters({}).check(browserEvent(UA.googlebot, { release: 'x' }), '10.0.0.1')).toBeUndefined();
  });

  it('drops crawlers, with the header as an object or as pairs, in any case', () => {
    const on = filters({ webCrawlers: true });
    expect(on.check(browserEvent(UA.bingbot), undefined)).toBe('web_crawlers');
    expect(on.check({ request: { headers: [['user-agent', UA.googlebot]] } }, undefined)).toBe(
      'web_crawlers',
    );
    expect(on.check(browserEvent(UA.chrome120), undefined)).toBeUndefined();
    expect(on.check({ request: { headers: 'garbage' } }, undefined)).toBeUndefined();
  });

  it('drops only the legacy browsers chosen', () => {
    const on = filters({ legacyBrowsers: ['ie_pre_9', 'ie10'] });
    expect(on.check(browserEvent(UA.ie8), undefined)).toBe('legacy_browsers');
    expect(on.check(browserEvent(UA.ie10), undefined)).toBe('legacy_browsers');
    expect(on.check(browserEvent(UA.ie11), undefined)).toBeUndefined();
    expect(on.check(browserEvent(UA.firefox121), undefined)).toBeUndefined();
  });

  it('drops errors thrown by extensions or known to come from them', () => {
    const on = filters({ browserExtensions: true });
    expect(on.check(thrownFrom('chrome-extension://abcdefgh/content.js'), undefined)).toBe(
      'browser_extensions',
    );
    expect(on.check(thrownFrom('moz-extension://1234/inject.js'), undefined)).toBe('browser_extensions');
    expect(
      on.check(thrownFrom('https://shop.example.com/x.js', "Can't find variable: ZiteReader"), undefined),
    ).toBe('browser_extensions');
    expect(on.check(thrownFrom('https://shop.example.com/x.js'), undefined)).toBeUndefined();
  });

  it('drops events from localhost by URL or user IP', () => {
    const on = filters({ localhost: true });
    expect(on.check({ request: { url: 'http://localhost:3000/' } }, undefined)).toBe('localhost');
    expect(on.check({ request: { url: 'http://app.localhost/' } }, undefined)).toBe('localhost');
    expect(on.check({ request: { url: 'http://127.0.0.1:8080/x' } }, undefined)).toBe('localhost');
    expect(on.check({ request: { url: 'http://[::1]/x' } }, undefined)).toBe('localhost');
    expect(on.check({ user: { ip_address: '::1' } }, undefined)).toBe('localhost');
    expect(on.check({ request: { url: 'http://dev:secret@LOCALHOST:8000/a?b#c' } }, undefined)).toBe(
      'localhost',
    );
    expect(on.check({ request: { url: 'http://127.9.9.9/' } }, undefined)).toBe('localhost');
    expect(on.check({ request: { url: 'https://localhost.example.com/' } }, undefined)).toBeUndefined();
    expect(on.check({ request: { url: 'https://127.example.com/' } }, undefined)).toBeUndefined();
    expect(
      on.check({ request: { url: 'https://shop.example.com/?next=http://localhost/' } }, undefined),
    ).toBeUndefined();
    expect(on.check({ request: { url: '/relative' } }, undefined)).toBeUndefined();
  });

  it('drops releases by glob, in their case', () => {
    const on = filters({ releases: ['*-beta*', 'web@1.0.*'] });
    expect(on.check({ release: 'web@2.0.0-beta.3' }, undefined)).toBe('release_version');
    expect(on.check({ release: 'web@1.0.7' }, undefined)).toBe('release_version');
    expect(on.check({ release: 'WEB@1.0.7' }, undefined)).toBeUndefined();
    expect(on.check({ release: 12 }, undefined)).toBeUndefined();
  });

  it('drops error messages by glob, in any case, from exceptions and log messages', () => {
    const on = filters({ errorMessages: ['*resizeobserver loop*', 'ChunkLoadError: *'] });
    expect(
      on.check(
        { exception: { values: [{ type: 'Error', value: 'ResizeObserver loop limit exceeded' }] } },
        undefined,
      ),
    ).toBe('error_message');
    expect(
      on.check({ exception: [{ type: 'ChunkLoadError', value: 'Loading chunk 7 failed.' }] }, undefined),
    ).toBe('error_message');
    expect(on.check({ logentry: { formatted: 'resizeobserver loop completed' } }, undefined)).toBe(
      'error_message',
    );
    expect(on.check({ message: 'ResizeObserver loop!' }, undefined)).toBe('error_message');
    expect(
      on.check({ exception: { values: [{ type: 'TypeError', value: 'x is undefined' }] } }, undefined),
    ).toBeUndefined();
  });

  it('drops client addresses and ranges', () => {
    const on = filters({ clientIps: ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32'] });
    expect(on.needsClientAddress).toBe(true);
    expect(on.check({}, '203.0.113.7')).toBe('ip_address');
    expect(on.check({}, '10.200.3.4')).toBe('ip_address');
    expect(on.check({}, '2001:db8:1::5')).toBe('ip_address');
    expect(on.check({}, '203.0.113.8')).toBeUndefined();
    expect(on.check({}, undefined)).toBeUndefined();
    expect(filters({ webCrawlers: true }).needsClientAddress).toBe(false);
  });
});

describe('IP ranges', () => {
  it.each(['1.2.3', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/1', 'localhost', '', '10.0.0.0/-1'])(
    'refuses %j',
    (text) => {
      expect(() => parseIpRange(text)).toThrow(IpRangeSyntaxError);
    },
  );

  it('matches IPv4 ranges against IPv4-mapped IPv6 addresses too', () => {
    expect(compileIpRanges(['192.168.0.0/16']).matches('::ffff:192.168.4.4')).toBe(true);
    expect(compileIpRanges(['192.168.0.0/16']).matches('not an ip')).toBe(false);
  });
});
