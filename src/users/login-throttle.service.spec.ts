import { clientAddressKey, normaliseEmail } from './login-throttle.service';

describe('clientAddressKey', () => {
  it('counts IPv4 addresses one by one, however they are written', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts IPv6 addresses per /64, in every spelling', () => {
    const key = '2001:db8:1:2::/64';
    for (const address of [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:0000:0000:0000:0001',
      '2001:DB8:1:2:ffff:ffff:ffff:fffe',
      '2001:db8:1:2:0:0:198.51.100.1',
      '2001:db8:1:2::9%eth0',
    ]) {
      expect({ address, key: clientAddressKey(address) }).toEqual({ address, key });
    }
    expect(clientAddressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('still counts what is no address, under a short key', () => {
    expect(clientAddressKey(undefined)).toBe('unknown');
    const junk = clientAddressKey('x'.repeat(10_000));
    expect(junk).toMatch(/^other:[0-9a-f]{32}$/);
    expect(clientAddressKey('x'.repeat(10_000))).toBe(junk);
  });
});

describe('normaliseEmail', () => {
  it('gives every spelling of an e-mail one counter', () => {
    expect(normaliseEmail(' Admin@Example.COM ')).toBe('admin@example.com');
  });
});
