import { canonicalUuid, clientKeyFromRequest, keyFromDsn } from './client-key';

describe('client keys', () => {
  const key = '6f1e0c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
  const hex = key.replace(/-/g, '');

  it('finds the key in each place an SDK puts it', () => {
    expect(
      clientKeyFromRequest(
        { 'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${hex}, sentry_client=x/1` },
        undefined,
      ),
    ).toEqual({ key: hex, from: 'x-sentry-auth' });
    expect(clientKeyFromRequest({ authorization: `Sentry sentry_key=${hex}` }, undefined)).toEqual({
      key: hex,
      from: 'authorization',
    });
    expect(clientKeyFromRequest({ authorization: 'Bearer abc' }, undefined)).toBeUndefined();
    expect(clientKeyFromRequest({ 'x-client-auth': key }, undefined)).toEqual({ key, from: 'x-client-auth' });
    expect(
      clientKeyFromRequest({ 'x-client-auth': `Sentry sentry_key=${hex}, sentry_version=7` }, undefined),
    ).toEqual({ key: hex, from: 'x-client-auth' });
    expect(clientKeyFromRequest({}, hex)).toEqual({ key: hex, from: 'query' });
    expect(clientKeyFromRequest({}, undefined)).toBeUndefined();
  });

  it('reads key and project from a DSN', () => {
    expect(keyFromDsn(`https://${hex}@errors.example.com/42`)).toEqual({ key: hex, projectId: 42 });
    expect(keyFromDsn(`http://${hex}:secret@127.0.0.1:8080/prefix/path/7`)).toEqual({
      key: hex,
      projectId: 7,
    });
    expect(keyFromDsn('not a dsn')).toBeUndefined();
    expect(keyFromDsn(42)).toBeUndefined();
  });

  it('accepts UUIDs with or without dashes, in any case', () => {
    expect(canonicalUuid(hex)).toBe(key);
    expect(canonicalUuid(key.toUpperCase())).toBe(key);
    expect(canonicalUuid('6f1e0c2a3b4d-4e5f-8a9b-0c1d2e3f4a5bxx')).toBeUndefined();
    expect(canonicalUuid('not-a-key')).toBeUndefined();
    expect(canonicalUuid(`${hex}0`)).toBeUndefined();
  });
});
