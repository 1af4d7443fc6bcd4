import { promises as dns } from 'node:dns';
import { isIpLiteral, parseIPv4, parseIPv6, refusalReason } from './ip-ranges';

describe('refusalReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.20', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['100.64.0.1', 'shared address space (CGNAT)'],
    ['100.127.255.255', 'shared address space (CGNAT)'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.255', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['64:ff9b:1::a00:1', 'private'], // local-use NAT64, whatever it embeds
    ['64:ff9b:1:ffff::8.8.8.8', 'private'],
    ['2001::1', 'reserved'], // Teredo
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['2001:2::1', 'reserved'], // benchmarking
    ['2001:1f::1', 'reserved'], // ORCHID
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['3fff:fff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['100::1', 'reserved'],
    ['100:0:0:1::1', 'reserved'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(refusalReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:81c::200e',
    '::ffff:8.8.8.8',
    '64:ff9b:2::1', // next to local-use NAT64
    '2001:1::1', // PCP anycast, globally reachable
    '2001:3::1', // AMT, globally reachable
    '2001:20::1', // ORCHIDv2, globally reachable
    '2001:4860:4860::8888',
    '3fff:1000::1', // past the documentation /20
    '192.0.3.1',
    '203.0.114.1',
  ])('allows the public address %s', (address) => {
    expect(refusalReason(address)).toBeNull();
  });

  it('checks the IPv4 address inside IPv4-mapped and similar IPv6 forms', () => {
    expect(refusalReason('::ffff:127.0.0.1')).toBe('loopback');
    expect(refusalReason('::ffff:7f00:1')).toBe('loopback'); // how the URL parser writes it
    expect(refusalReason('[::ffff:7f00:1]')).toBe('loopback');
    expect(refusalReason('::ffff:a9fe:a9fe')).toBe('link-local'); // 169.254.169.254
    expect(refusalReason('::ffff:10.1.2.3')).toBe('private');
    expect(refusalReason('::ffff:0.0.0.0')).toBe('unspecified');
    expect(refusalReason('0:0:0:0:0:ffff:c0a8:0101')).toBe('private');
    expect(refusalReason('::127.0.0.1')).toBe('loopback'); // deprecated IPv4-compatible
    expect(refusalReason('::ffff:0:127.0.0.1')).toBe('loopback'); // IPv4-translated
    expect(refusalReason('64:ff9b::127.0.0.1')).toBe('loopback'); // NAT64
    expect(refusalReason('64:ff9b::8.8.8.8')).toBeNull();
    expect(refusalReason('2002:7f00:1::')).toBe('loopback'); // 6to4 of 127.0.0.1
    expect(refusalReason('2002:0808:0808::1')).toBeNull();
  });

  it('refuses what is not a canonical IP address', () => {
    expect(refusalReason('localhost')).toBe('not an IP address');
    expect(refusalReason('2130706433')).toBe('not an IP address');
    expect(refusalReason('0x7f.1')).toBe('not an IP address');
    expect(refusalReason('')).toBe('not an IP address');
  });

  it('sees through the spellings the URL parser normalises (decimal, hex, octal, short forms)', () => {
    const hostOf = (url: string) => new URL(url).hostname;
    for (const url of [
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0x7f000001/',
      'http://0177.0.0.1/',
      'http://017700000001/',
      'http://127.1/',
      'http://127.0.1/',
    ]) {
      const host = hostOf(url);
      expect({ url, host, literal: isIpLiteral(host), reason: refusalReason(host) }).toEqual({
        url,
        host: '127.0.0.1',
        literal: true,
        reason: 'loopback',
      });
    }
    expect(refusalReason(hostOf('http://0/'))).toBe('unspecified');
    expect(refusalReason(hostOf('http://0xa9.0xfe.0xa9.0xfe/'))).toBe('link-local');
    expect(refusalReason(hostOf('http://[::ffff:127.0.0.1]/'))).toBe('loopback');
    expect(refusalReason(hostOf('http://[::1]/'))).toBe('loopback');
    expect(refusalReason(hostOf('http://[0:0:0:0:0:0:0:0]/'))).toBe('unspecified');
  });

  it('sees through the spellings the OS resolver accepts (what a guarded lookup checks)', async () => {
    for (const name of ['2130706433', '0x7f.1', '0177.0.0.1', '127.1']) {
      const answers = await dns.lookup(name, { all: true });
      expect(answers.length).toBeGreaterThan(0);
      for (const answer of answers)
        expect({ name, reason: refusalReason(answer.address) }).toEqual({ name, reason: 'loopback' });
    }
    const mapped = await dns.lookup('::ffff:169.254.169.254', { all: true });
    for (const answer of mapped) expect(refusalReason(answer.address)).toBe('link-local');
  });
});

describe('address parsing', () => {
  it('parses canonical IPv4 only', () => {
    expect(parseIPv4('1.2.3.4')).toBe(0x01020304);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
    expect(parseIPv4('256.1.1.1')).toBeNull();
    expect(parseIPv4('01.2.3.4')).toBeNull();
    expect(parseIPv4('1.2.3')).toBeNull();
  });

  it('parses IPv6 with compression and dotted tails', () => {
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('fe80::1:2')).toEqual([0xfe80, 0, 0, 0, 0, 0, 1, 2]);
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIPv6('1:2:3:4:5:6:7.8.9.10')).toEqual([1, 2, 3, 4, 5, 6, 0x0708, 0x090a]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6('[2001:db8::1]')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('1::2::3')).toBeNull();
    expect(parseIPv6('1:2:3')).toBeNull();
    expect(parseIPv6('fe80::1%eth0')).toBeNull();
  });
});
