import { BlockList, isIP } from 'node:net';

/**
 * The client-IP filter's addresses and CIDR ranges (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`),
 * held in node's BlockList: a lookup is one native call whatever the number of ranges, and no
 * regular expression reads the input.
 */
export class IpRangeSyntaxError extends Error {}

export interface ParsedRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `address` or `address/prefix`; throws IpRangeSyntaxError with the reason. */
export function parseIpRange(text: string): ParsedRange {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const version = isIP(address);
  if (version === 0) throw new IpRangeSyntaxError(`"${text}" is not an IP address or CIDR range`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const bits = version === 4 ? 32 : 128;
  if (slash === -1) return { address, prefix: bits, family };
  const prefixText = text.slice(slash + 1);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= bits)) {
    throw new IpRangeSyntaxError(`"${text}" has a prefix length outside 0 to ${bits}`);
  }
  return { address, prefix, family };
}

export interface IpMatcher {
  matches(address: string): boolean;
}

export function compileIpRanges(ranges: readonly string[]): IpMatcher {
  const list = new BlockList();
  for (const text of ranges) {
    const range = parseIpRange(text);
    list.addSubnet(range.address, range.prefix, range.family);
  }
  return {
    matches(address: string): boolean {
      const version = isIP(address);
      if (version === 0) return false;
      // BlockList matches an IPv4 subnet against IPv4-mapped IPv6 (::ffff:a.b.c.d) too.
      return list.check(address, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
