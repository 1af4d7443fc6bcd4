import {
  ChannelConfigError,
  maskConfig,
  maskSecret,
  rejectMaskedSecret,
  restoreMaskedSecret,
  validateChannelConfig,
} from './channel-config';

function errorOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ChannelConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ChannelConfigError');
}

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

  it('masks the secret in views and leaves other settings alone', () => {
    const config = { url: 'https://x.io', secret: 'whsec_0123456789' };
    expect(maskConfig(config)).toEqual({ url: 'https://x.io', secret: 'whse...****' });
    expect(config.secret).toBe('whsec_0123456789');
    expect(maskConfig({ webhook_url: 'https://x.io' })).toEqual({ webhook_url: 'https://x.io' });
  });

  it('keeps the stored secret when the masked value comes back', () => {
    const stored = { url: 'https://x.io', secret: 'whsec_0123456789' };
    expect(restoreMaskedSecret({ url: 'https://y.io', secret: 'whse...****' }, stored)).toEqual({
      url: 'https://y.io',
      secret: 'whsec_0123456789',
    });
    expect(restoreMaskedSecret({ url: 'https://y.io', secret: 'new-secret' }, stored)).toEqual({
      url: 'https://y.io',
      secret: 'new-secret',
    });
    expect(restoreMaskedSecret({ url: 'https://y.io' }, stored)).toEqual({ url: 'https://y.io' });
    expect(
      errorOf(() => restoreMaskedSecret({ url: 'https://y.io', secret: 'abcd...****' }, stored)),
    ).toMatch(/masked value/);
    expect(errorOf(() => restoreMaskedSecret({ secret: '****' }, { url: 'https://x.io' }))).toMatch(
      /masked value/,
    );
  });

  it('refuses a masked value as a new secret', () => {
    expect(errorOf(() => rejectMaskedSecret({ secret: 'whse...****' }))).toMatch(/masked value/);
    expect(() => rejectMaskedSecret({ secret: 'fine' })).not.toThrow();
  });
});
