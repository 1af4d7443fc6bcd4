import { thrownBy } from '../../test/helpers/thrown';
import { InvalidInputError } from '../common/domain-errors';
import {
  ChannelConfigError,
  maskConfig,
  maskSecret,
  rejectMaskedSecrets,
  restoreMaskedSecrets,
  validateChannelConfig,
} from './channel-config';

const errorOf = (work: () => unknown) => thrownBy(ChannelConfigError, work).message;

describe('validateChannelConfig', () => {
  it('accepts a webhook with url, secret and headers', () => {
    expect(
      validateChannelConfig('webhook', {
        url: ' https://example.com/hook ',
        secret: 's3cret',
        headers: { 'X-Team': 'ops' },
      }),
    ).toEqual({ url: 'https://example.com/hook', secret: 's3cret', headers: { 'X-Team': 'ops' } });
    expect(validateChannelConfig('webhook', { url: 'http://10.0.0.1:8080/x' })).toEqual({
      url: 'http://10.0.0.1:8080/x',
    });
  });

  it.each([
    [{}, 'config.url must be an http(s) URL'],
    [{ url: 'ftp://example.com' }, 'config.url must be an http(s) URL'],
    [{ url: 'not a url' }, 'config.url must be an http(s) URL'],
    [{ url: 42 }, 'config.url must be an http(s) URL'],
    [{ url: 'javascript:alert(1)' }, 'config.url must be an http(s) URL'],
    [
      { url: 'https://x.io', secret: 7 },
      'config.secret must be a non-empty string of at most 256 characters',
    ],
    [
      { url: 'https://x.io', secret: '' },
      'config.secret must be a non-empty string of at most 256 characters',
    ],
    [{ url: 'https://x.io', headers: ['a'] }, 'config.headers must be an object of strings'],
    [{ url: 'https://x.io', headers: { 'X-A': 1 } }, 'config.headers.X-A must be a single-line string'],
    [
      { url: 'https://x.io', headers: { 'X-A': 'a\r\nB: c' } },
      'config.headers.X-A must be a single-line string',
    ],
    [
      { url: 'https://x.io', headers: { 'bad name': 'x' } },
      'config.headers: "bad name" is not a valid header name',
    ],
    [{ url: 'https://x.io', headers: { Host: 'x' } }, 'config.headers: Host cannot be set'],
    [
      { url: 'https://x.io', to: ['a@b.co'] },
      'config.to is not a setting of webhook channels (allowed: url, secret, headers)',
    ],
  ])('rejects webhook config %j', (config, message) => {
    expect(errorOf(() => validateChannelConfig('webhook', config))).toBe(message);
  });

  it('accepts e-mail recipients and removes duplicates', () => {
    expect(
      validateChannelConfig('email', { to: ['ops@example.com', ' OPS@example.com', 'dev@example.org'] }),
    ).toEqual({
      to: ['ops@example.com', 'dev@example.org'],
    });
  });

  it.each([
    [{}, 'config.to must be a non-empty list of e-mail addresses'],
    [{ to: [] }, 'config.to must be a non-empty list of e-mail addresses'],
    [{ to: 'ops@example.com' }, 'config.to must be a non-empty list of e-mail addresses'],
    [{ to: ['nope'] }, 'config.to: "nope" is not a valid e-mail address'],
    [{ to: [3] }, 'config.to: 3 is not a valid e-mail address'],
    [
      { to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`) },
      'config.to may have at most 50 addresses',
    ],
    [{ to: ['a@example.com'], cc: [] }, 'config.cc is not a setting of email channels (allowed: to)'],
  ])('rejects email config #%#', (config, message) => {
    expect(errorOf(() => validateChannelConfig('email', config))).toBe(message);
  });

  it('validates chat webhook URLs', () => {
    expect(validateChannelConfig('chat', { webhook_url: 'https://hooks.slack.com/services/T/B/X' })).toEqual({
      webhook_url: 'https://hooks.slack.com/services/T/B/X',
    });
    expect(errorOf(() => validateChannelConfig('chat', {}))).toBe(
      'config.webhook_url must be an http(s) URL',
    );
    expect(errorOf(() => validateChannelConfig('chat', { url: 'https://x.io' }))).toBe(
      'config.url is not a setting of chat channels (allowed: webhook_url)',
    );
  });

  it('requires an object', () => {
    expect(errorOf(() => validateChannelConfig('chat', null))).toBe('config must be an object');
    expect(errorOf(() => validateChannelConfig('chat', []))).toBe('config must be an object');
  });
});

describe('secret masking', () => {
  it('shows four characters of a long secret and nothing of a short one', () => {
    expect(maskSecret('whsec_0123456789')).toBe('whse...****');
    expect(maskSecret('short')).toBe('****');
  });

  it('masks every secret in views and leaves other settings alone', () => {
    const config = {
      url: 'https://x.io/hook',
      secret: 'whsec_0123456789',
      headers: { Authorization: 'Bearer 0123456789abcdef', 'X-Team': 'ops' },
    };
    const copy = structuredClone(config);
    expect(maskConfig(config)).toEqual({
      url: 'https://x.io/hook',
      secret: 'whse...****',
      headers: { Authorization: 'Bear...****', 'X-Team': '****' },
    });
    expect(config).toEqual(copy);
    expect(maskConfig({ to: ['ops@example.com'] })).toEqual({ to: ['ops@example.com'] });
  });

  it('masks the credentials and the query of a webhook URL, keeping where it goes', () => {
    const masked = (url: string) => maskConfig({ url }).url;
    expect(masked('https://user:pa55@hooks.example.com:8443/in/errors?token=abc&x=1')).toBe(
      'https://****:****@hooks.example.com:8443/in/errors?****',
    );
    expect(masked('https://t0ken@hooks.example.com/in')).toBe('https://****@hooks.example.com/in');
    expect(masked('https://hooks.example.com/in?')).toBe('https://hooks.example.com/in?');
    expect(masked('https://hooks.example.com/in')).toBe('https://hooks.example.com/in');
    expect(masked('http://10.0.0.1:8080/x')).toBe('http://10.0.0.1:8080/x');
  });

  it('shows only the scheme and host of a chat webhook URL', () => {
    expect(maskConfig({ webhook_url: 'https://hooks.slack.com/services/T000/B000/XXXX' })).toEqual({
      webhook_url: 'https://hooks.slack.com/…****',
    });
    expect(maskConfig({ webhook_url: 'http://u:p@chat.example.com:8065/hooks/abc?x=1' })).toEqual({
      webhook_url: 'http://chat.example.com:8065/…****',
    });
  });

  it('keeps the stored secrets when their masked values come back or they are left out', () => {
    const stored = {
      url: 'https://u:p@x.io/h?k=v',
      secret: 'whsec_0123456789',
      headers: { Authorization: 'Bearer 0123456789abcdef', 'X-Team': 'ops' },
    };
    expect(restoreMaskedSecrets(maskConfig(stored), stored)).toEqual(stored);
    expect(restoreMaskedSecrets({}, stored)).toEqual(stored);
    expect(restoreMaskedSecrets({ url: 'https://u:p@x.io/other' }, stored)).toEqual({
      ...stored,
      url: 'https://u:p@x.io/other',
    });
    expect(
      restoreMaskedSecrets({ secret: 'new-secret', headers: { 'x-team': '****', 'X-New': 'n' } }, stored),
    ).toEqual({ url: stored.url, secret: 'new-secret', headers: { 'x-team': 'ops', 'X-New': 'n' } });
    expect(restoreMaskedSecrets({ secret: null, headers: null }, stored)).toEqual({
      url: stored.url,
      secret: null,
      headers: null,
    });

    const chat = { webhook_url: 'https://hooks.slack.com/services/T/B/X' };
    expect(restoreMaskedSecrets(maskConfig(chat), chat)).toEqual(chat);
    expect(restoreMaskedSecrets({}, chat)).toEqual(chat);
    // Recipients are no secret: the sent config replaces them, as before.
    expect(restoreMaskedSecrets({}, { to: ['a@example.com'] })).toEqual({});
    expect(restoreMaskedSecrets('not an object', stored)).toBe('not an object');
  });

  it.each([
    [
      { secret: 'abcd...****' },
      'config.secret is a masked value: send the new secret, or the masked value unchanged',
    ],
    [
      { url: 'https://****@other.io/' },
      'config.url is a masked value: send the new URL, or the masked value unchanged',
    ],
    [
      { headers: { Authorization: 'Xxxx...****' } },
      'config.headers.Authorization is a masked value: send the new value, or the masked value unchanged',
    ],
    [
      { headers: { 'X-Other': '****' } },
      'config.headers.X-Other is a masked value: send the new value, or the masked value unchanged',
    ],
  ])('refuses a masked value that is not the stored one: %j', (submitted, message) => {
    const stored = {
      url: 'https://u:p@x.io/h',
      secret: 'whsec_0123456789',
      headers: { Authorization: 'Bearer 0123456789abcdef' },
    };
    expect(errorOf(() => restoreMaskedSecrets(submitted, stored))).toBe(message);
  });

  it('does not carry stored header values over to another host', () => {
    const stored = {
      url: 'https://x.io/h',
      secret: 'whsec_0123456789',
      headers: { Authorization: 'Bearer 0123456789abcdef', 'X-Team': 'ops' },
    };
    const moved = 'config.headers.Authorization must be sent again when config.url moves to another host';
    expect(errorOf(() => restoreMaskedSecrets({ url: 'https://evil.example/h' }, stored))).toBe(moved);
    expect(errorOf(() => restoreMaskedSecrets({ ...maskConfig(stored), url: 'http://x.io/h' }, stored))).toBe(
      moved,
    );
    expect(
      errorOf(() =>
        restoreMaskedSecrets({ url: 'https://x.io:8443/h', headers: { 'X-Team': '****' } }, stored),
      ),
    ).toBe('config.headers.X-Team must be sent again when config.url moves to another host');
    // New values, or no headers at all, may go anywhere; the HMAC key never travels in clear.
    expect(
      restoreMaskedSecrets(
        { url: 'https://new.example/h', headers: { Authorization: 'Bearer new' } },
        stored,
      ),
    ).toEqual({
      url: 'https://new.example/h',
      secret: stored.secret,
      headers: { Authorization: 'Bearer new' },
    });
    expect(restoreMaskedSecrets({ url: 'https://new.example/h', headers: null }, stored)).toEqual({
      url: 'https://new.example/h',
      secret: stored.secret,
      headers: null,
    });
  });

  it('refuses a masked secret when none is stored, and a foreign masked chat URL', () => {
    expect(errorOf(() => restoreMaskedSecrets({ secret: '****' }, { url: 'https://x.io' }))).toMatch(
      /masked value/,
    );
    expect(
      errorOf(() =>
        restoreMaskedSecrets(
          { webhook_url: 'https://other.slack.com/…****' },
          { webhook_url: 'https://hooks.slack.com/services/T/B/X' },
        ),
      ),
    ).toBe('config.webhook_url is a masked value: send the new URL, or the masked value unchanged');
  });

  it.each([
    [{ secret: 'whse...****' }, 'config.secret is a masked value: send the secret itself'],
    [{ url: 'https://****@x.io/' }, 'config.url is a masked value: send the URL itself'],
    [
      { webhook_url: 'https://hooks.slack.com/…****' },
      'config.webhook_url is a masked value: send the URL itself',
    ],
    [
      { url: 'https://x.io', headers: { 'X-Key': '****' } },
      'config.headers.X-Key is a masked value: send the value itself',
    ],
  ])('refuses masked values in a new channel: %j', (submitted, message) => {
    expect(errorOf(() => rejectMaskedSecrets(submitted))).toBe(message);
  });

  it('lets real values through on creation', () => {
    expect(() =>
      rejectMaskedSecrets({ url: 'https://u:p@x.io/?a=1', secret: 'fine', headers: { 'X-Key': 'value' } }),
    ).not.toThrow();
    expect(() =>
      rejectMaskedSecrets({ webhook_url: 'https://hooks.slack.com/services/T/B/X' }),
    ).not.toThrow();
  });

  it('reports config problems as invalid input', () => {
    expect(new ChannelConfigError('x')).toBeInstanceOf(InvalidInputError);
  });
});
