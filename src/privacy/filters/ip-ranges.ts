import { BlockList, isIP } from 'node:net';

/**
 * The client-IP filter's addresses and CIDR ranges (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`),
 * parsed by node's own address check (`isIP`) and a digit scan: no regular expression reads what
 * a client sends.
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

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or undefined. */
function ipv4Number(address: string): number | undefined {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return undefined;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48);
      digits++;
      if (part > 255) return undefined;
    } else {
      return undefined;
    }
  }
  if (dots !== 3 || digits === 0) return undefined;
  return value * 256 + part;
}

/**
 * IPv4 ranges are compared as numbers (a few integer operations per range: the common case, and
 * cheaper than a native call per lookup); IPv6 ones go to node's BlockList.
 */
export function compileIpRanges(ranges: readonly string[]): IpMatcher {
  const v4: { network: number; size: number }[] = [];
  const v6 = new BlockList();
  let hasV6 = false;
  for (const text of ranges) {
    const range = parseIpRange(text);
    if (range.family === 'ipv4') {
      const size = 2 ** (32 - range.prefix);
      v4.push({ network: Math.floor(ipv4Number(range.address)! / size) * size, size });
    } else {
      v6.addSubnet(range.address, range.prefix, 'ipv6');
      hasV6 = true;
    }
  }
  const matchesV4 = (value: number) => {
    for (const { network, size } of v4) if (value >= network && value < network + size) return true;
    return false;
  };
  return {
    matches(address: string): boolean {
      const value = ipv4Number(address.startsWith('::ffff:') ? address.slice(7) : address);
      if (value !== undefined) return matchesV4(value);
      return hasV6 && isIP(address) === 6 && v6.check(address, 'ipv6');
    },
  };
}
