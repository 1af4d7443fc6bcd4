import type { NormalisedEvent } from '../../events/normalised-event';
import { DEFAULT_SCRUB_SETTINGS, EventScrubber, MAX_RECORDED_PATHS, ScrubSettings } from './event-scrubber';

function event(overrides: Partial<NormalisedEvent>): NormalisedEvent {
  return {
    event_id: 'a'.repeat(32),
    timestamp: '2026-11-26T10:00:00.000Z',
    level: 'error',
    platform: 'node',
    logger: null,
    server_name: null,
    release: null,
    dist: null,
    environment: null,
    transaction: null,
    message: null,
    exception: null,
    breadcrumbs: { values: [] },
    tags: {},
    contexts: {},
    request: null,
    user: null,
    sdk: null,
    extra: {},
    fingerprint: null,
    ...overrides,
  };
}

const scrub = (input: NormalisedEvent, settings: Partial<ScrubSettings> = {}): NormalisedEvent => {
  new EventScrubber({ ...DEFAULT_SCRUB_SETTINGS, ...settings }).scrub(input);
  return input;
};

describe('EventScrubber', () => {
  it('records every rule of a value at its path, and counts the values past the limit, not their rules', () => {
    // Each value is matched by two rules: a password in the URL and a sensitive query parameter.
    const values = MAX_RECORDED_PATHS + 3;
    const extra = Object.fromEntries(
      Array.from({ length: values }, (_, i) => [
        `db_${i}`,
        `postgres://app:pw-${i}@db.example/?token=t-${i}`,
      ]),
    );
    const { scrubbed } = scrub(event({ extra }));
    const entries = scrubbed ?? [];
    const last = entries[entries.length - 1];
    expect(last.path).toBe('(3 more)');
    const recorded = entries.slice(0, -1);
    const paths = [...new Set(recorded.map((entry) => entry.path))];
    expect(paths).toHaveLength(MAX_RECORDED_PATHS);
    for (const path of paths) {
      expect(recorded.filter((entry) => entry.path === path).map((entry) => entry.rule)).toEqual([
        'url_password',
        'sensitive_key',
      ]);
    }
  });

  it('filters a login request: form body, headers, cookies, query string', () => {
    const scrubbed = scrub(
      event({
        request: {
          url: 'https://shop.example/login?next=/cart&token=abc',
          method: 'POST',
          data: { username: 'ann', password: 'hunter2', remember: true },
          query_string: 'next=/cart&token=abc',
          headers: {
            Authorization: 'Basic YW5uOmh1bnRlcjI=',
            Cookie: 'sessionid=s1; theme=dark',
            'User-Agent': 'UA',
          },
          cookies: { sessionid: 's1', theme: 'dark', csrftoken: 'c1' },
        },
      }),
    );
    expect(scrubbed.request).toEqual({
      url: 'https://shop.example/login?next=/cart&token=[Filtered]',
      method: 'POST',
      data: { username: 'ann', password: '[Filtered]', remember: true },
      query_string: 'next=/cart&token=[Filtered]',
      headers: { Authorization: '[Filtered]', Cookie: '[Filtered]', 'User-Agent': 'UA' },
      cookies: { sessionid: '[Filtered]', theme: 'dark', csrftoken: '[Filtered]' },
    });
    expect(scrubbed.scrubbed).toEqual(
      expect.arrayContaining([
        { path: 'request.data.password', rule: 'sensitive_key' },
        { path: 'request.headers.Authorization', rule: 'authorization_header' },
        { path: 'request.headers.Cookie', rule: 'cookie_header' },
        { path: 'request.cookies.sessionid', rule: 'session_cookie' },
        { path: 'request.url', rule: 'sensitive_key' },
      ]),
    );
    expect(JSON.stringify(scrubbed)).not.toMatch(/hunter2|YW5u|s1|c1|abc/);
  });

  it('filters secrets inside strings: JSON bodies, messages, exception values, breadcrumbs, tags', () => {
    const scrubbed = scrub(
      event({
        message: 'charge failed for 4111 1111 1111 1111',
        exception: { values: [{ type: 'Error', value: 'connect postgres://app:pw9@db/x failed' }] },
        breadcrumbs: {
          values: [
            { timestamp: null, category: 'http', data: { url: '/api?api_key=K1', body: '{"secret":"S1"}' } },
          ],
        },
        tags: { token: 'TKN1', region: 'eu' },
        extra: {
          key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----',
          iban: 'DE89370400440532013000',
        },
        contexts: { auth: { header: 'Bearer eyJ.x.y' } },
      }),
    );
    const text = JSON.stringify(scrubbed);
    for (const secret of ['4111 1111', 'pw9', 'K1', 'S1', 'TKN1', 'MIIE', 'DE8937', 'eyJ'])
      expect(text).not.toContain(secret);
    expect(scrubbed.message).toBe('charge failed for [Filtered]');
    expect(scrubbed.exception?.values[0].value).toBe('connect postgres://app:[Filtered]@db/x failed');
    expect(scrubbed.breadcrumbs.values[0].data?.body).toBe('{"secret":"[Filtered]"}');
    expect(scrubbed.tags).toEqual({ token: '[Filtered]', region: 'eu' });
    expect(scrubbed.scrubbed?.map((entry) => entry.rule).sort()).toEqual(
      [
        'credit_card',
        'iban',
        'pem_key',
        'sensitive_key',
        'sensitive_key',
        'sensitive_key',
        'sensitive_key',
        'url_password',
      ].sort(),
    );
  });

  it('renames a key that is itself a card number', () => {
    const scrubbed = scrub(event({ extra: { '4111111111111111': 'visa' } }));
    expect(scrubbed.extra).toEqual({ '[Filtered]': 'visa' });
  });

  it('keeps safe fields and filters additional sensitive fields', () => {
    const scrubbed = scrub(event({ extra: { auth_provider: 'github', national_id: 'X-1' } }), {
      safeFields: ['AUTH_PROVIDER'],
      sensitiveFields: ['national_id'],
    });
    expect(scrubbed.extra).toEqual({ auth_provider: 'github', national_id: '[Filtered]' });
    expect(scrubbed.scrubbed).toEqual([{ path: 'extra.national_id', rule: 'custom_key' }]);
  });

  it('removes IP addresses only when asked to', () => {
    const input = () =>
      event({
        user: { id: 'u1', ip_address: '203.0.113.9' },
        request: { env: { REMOTE_ADDR: '203.0.113.9' } },
      });
    expect(scrub(input()).user).toEqual({ id: 'u1', ip_address: '203.0.113.9' });
    const scrubbed = scrub(input(), { scrubIpAddresses: true });
    expect(scrubbed.user).toEqual({ id: 'u1' });
    expect(scrubbed.request).toEqual({ env: { REMOTE_ADDR: '[Filtered]' } });
  });

  it('does nothing when turned off, and records nothing when nothing matched', () => {
    const off = scrub(event({ extra: { password: 'p' } }), { enabled: false });
    expect(off.extra).toEqual({ password: 'p' });
    const clean = scrub(event({ extra: { colour: 'blue' }, message: 'all good' }));
    expect(clean.scrubbed).toBeUndefined();
  });

  it('reads headers and query strings sent as pairs', () => {
    const scrubbed = scrub(
      event({
        request: {
          headers: [
            ['X-Api-Key', 'k'],
            ['Accept', '*/*'],
          ],
          query_string: [
            ['access_token', 't'],
            ['q', 'x'],
          ],
        },
      }),
    );
    expect(scrubbed.request).toEqual({
      headers: [
        ['X-Api-Key', '[Filtered]'],
        ['Accept', '*/*'],
      ],
      query_string: [
        ['access_token', '[Filtered]'],
        ['q', 'x'],
      ],
    });
  });
});
