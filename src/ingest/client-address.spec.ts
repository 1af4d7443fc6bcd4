import type { IncomingMessage } from 'node:http';
import { clientAddressResolver } from './client-address';

const request = (remoteAddress: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('clientAddressResolver', () => {
  it('believes X-Forwarded-For only from trusted proxies (the default: private networks)', () => {
    const resolve = clientAddressResolver('loopback, linklocal, uniquelocal');
    expect(resolve(request('::ffff:127.0.0.1', '198.51.100.9'))).toBe('198.51.100.9');
    expect(resolve(request('10.0.0.2', '198.51.100.9, 10.0.0.3'))).toBe('198.51.100.9');
    expect(resolve(request('203.0.113.50', '198.51.100.9'))).toBe('203.0.113.50');
    expect(resolve(request('10.0.0.2', '1.1.1.1, 198.51.100.9'))).toBe('198.51.100.9');
  });

  it('takes true, false and hop counts as Express does', () => {
    expect(clientAddressResolver('true')(request('203.0.113.50', '1.1.1.1, 2.2.2.2'))).toBe('1.1.1.1');
    expect(clientAddressResolver('false')(request('127.0.0.1', '1.1.1.1'))).toBe('127.0.0.1');
    expect(clientAddressResolver('1')(request('127.0.0.1', '1.1.1.1, 2.2.2.2'))).toBe('2.2.2.2');
  });
});
