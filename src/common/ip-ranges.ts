import { isIP } from 'node:net';

/**
 * Which addresses an outbound request (webhook, chat, uptime check) may connect to. Pure logic on canonical address
 * strings as the OS resolver returns them (`dns.lookup`) or as the WHATWG URL parser writes them:
 * both turn `2130706433`, `0x7f.1` or `0177.0.0.1` into `127.0.0.1`, so only canonical forms
 * reach these functions. Anything that does not parse as an IP is refused (fail closed).
 */

/** Why an address is refused, or null when it is a public unicast address. */
export type RefusalReason =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unspecified'
  | 'shared address space (CGNAT)'
  | 'multicast'
  | 'reserved'
  | 'not an IP address';

interface V4Range {
  base: number;
  bits: number;
  reason: RefusalReason;
}

function v4(cidr: string, reason: RefusalReason): V4Range {
  const [address, bits] = cidr.split('/');
  return { base: parseIPv4(address)!, bits: Number(bits), reason };
}

/** Order matters only for the reason reported; every listed range is refused. */
const V4_REFUSED: V4Range[] = [
  v4('0.0.0.0/32', 'unspecified'),
  v4('0.0.0.0/8', 'reserved'), // "this network": connecting to 0.x reaches the local host on Linux
  v4('127.0.0.0/8', 'loopback'),
  v4('10.0.0.0/8', 'private'),
  v4('172.16.0.0/12', 'private'),
  v4('192.168.0.0/16', 'private'),
  v4('169.254.0.0/16', 'link-local'), // includes 169.254.169.254, the cloud metadata service
  v4('100.64.0.0/10', 'shared address space (CGNAT)'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  v4('198.18.0.0/15', 'reserved'), // benchmarking, used inside some data centres
  v4('192.0.2.0/24', 'reserved'), // documentation (TEST-NET-1)
  v4('198.51.100.0/24', 'reserved'), // documentation (TEST-NET-2)
  v4('203.0.113.0/24', 'reserved'), // documentation (TEST-NET-3)
  v4('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast: whichever relay is nearest
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'), // includes 255.255.255.255 broadcast
];

/** Dotted-quad IPv4 in canonical decimal form only (`1.2.3.4`), as a 32-bit unsigned number. */
export function parseIPv4(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/** IPv6 (with `::` and an optional dotted IPv4 tail, no zone) as eight 16-bit groups. */
export function parseIPv6(address: string): number[] | null {
  let text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (text.includes('%')) return null; // zone ids are never a routable destination
  let tail: number[] = [];
  if (text.includes('.')) {
    const lastColon = text.lastIndexOf(':');
    const v4value = lastColon < 0 ? null : parseIPv4(text.slice(lastColon + 1));
    if (v4value === null) return null;
    tail = [Math.floor(v4value / 65536), v4value % 65536];
    // `::ffff:1.2.3.4` → `::ffff`, `::1.2.3.4` → `::`, `1:2:3:4:5:6:1.2.3.4` → `1:2:3:4:5:6`
    text = text.endsWith('::' + text.slice(lastColon + 1))
      ? text.slice(0, lastColon + 1)
      : text.slice(0, lastColon);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
      groups.push(parseInt(group, 16));
    }
    return groups;
  };
  const head = parseGroups(halves[0]);
  const rest = halves.length === 2 ? parseGroups(halves[1]) : [];
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 2) {
    if (explicit > 7) return null;
    return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
  }
  return explicit === 8 ? [...head, ...tail] : null;
}

function classifyIPv4(value: number): RefusalReason | null {
  for (const range of V4_REFUSED) {
    const size = 2 ** (32 - range.bits);
    if (Math.floor(value / size) === Math.floor(range.base / size)) return range.reason;
  }
  return null;
}

interface V6Prefix {
  /** The prefix's leading groups; `bits` of them count. */
  groups: number[];
  bits: number;
  reason: RefusalReason;
}

/**
 * IPv6 blocks of IANA's special-purpose registry that are not globally reachable and embed no IPv4
 * address checked on its own below.
 */
const V6_REFUSED: V6Prefix[] = [
  // Local-use NAT64 (RFC 8215): translated to whatever the local network maps it to, internal hosts included.
  { groups: [0x64, 0xff9b, 0x1], bits: 48, reason: 'private' },
  { groups: [0x100, 0, 0, 0x1], bits: 64, reason: 'reserved' }, // dummy prefix (RFC 9780)
  // Teredo (RFC 4380): tunnelled to the (obfuscated) IPv4 address it carries, through a relay.
  { groups: [0x2001, 0], bits: 32, reason: 'reserved' },
  { groups: [0x2001, 0x2, 0], bits: 48, reason: 'reserved' }, // benchmarking
  { groups: [0x2001, 0x10], bits: 28, reason: 'reserved' }, // ORCHID, deprecated
  { groups: [0x2001, 0x0db8], bits: 32, reason: 'reserved' }, // documentation
  { groups: [0x3fff], bits: 20, reason: 'reserved' }, // documentation (RFC 9637)
  { groups: [0x5f00], bits: 16, reason: 'reserved' }, // SRv6 segment identifiers (RFC 9602)
  { groups: [0x100, 0, 0, 0], bits: 64, reason: 'reserved' }, // discard-only
];

function inPrefix(groups: number[], prefix: V6Prefix): boolean {
  for (let bit = 0; bit < prefix.bits; bit += 16) {
    const width = Math.min(16, prefix.bits - bit);
    const mask = (0xffff << (16 - width)) & 0xffff;
    const index = bit / 16;
    if ((groups[index] & mask) !== ((prefix.groups[index] ?? 0) & mask)) return false;
  }
  return true;
}

function embeddedIPv4(groups: number[], from: number): number {
  return groups[from] * 65536 + groups[from + 1];
}

function classifyIPv6(groups: number[]): RefusalReason | null {
  const [g0, g1, g2, g3, g4, g5] = groups;
  const zeroUpTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroUpTo(8)) return 'unspecified'; // ::
  if (zeroUpTo(7) && groups[7] === 1) return 'loopback'; // ::1
  // IPv4-mapped ::ffff:a.b.c.d, and the deprecated IPv4-compatible ::a.b.c.d: the kernel connects to the IPv4 address.
  if (zeroUpTo(5) && g5 === 0xffff) return classifyIPv4(embeddedIPv4(groups, 6));
  if (zeroUpTo(6)) return classifyIPv4(embeddedIPv4(groups, 6)) ?? 'reserved';
  // IPv4-translated ::ffff:0:a.b.c.d (SIIT) and NAT64 64:ff9b::a.b.c.d reach the embedded IPv4 address.
  if (zeroUpTo(4) && g4 === 0xffff && g5 === 0) return classifyIPv4(embeddedIPv4(groups, 6));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyIPv4(embeddedIPv4(groups, 6));
  }
  if (g0 === 0x2002) return classifyIPv4(embeddedIPv4(groups, 1)); // 6to4 embeds an IPv4 address
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // fec0::/10, deprecated site-local
  if ((g0 & 0xff00) === 0xff00) return 'multicast'; // ff00::/8
  return V6_REFUSED.find((prefix) => inPrefix(groups, prefix))?.reason ?? null;
}

/**
 * Why connecting to `address` is refused, or null for a public address. `address` is an IP literal
 * (IPv6 optionally in brackets, as `URL.hostname` writes it).
 */
export function refusalReason(address: string): RefusalReason | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 4) {
    const value = parseIPv4(bare);
    return value === null ? 'not an IP address' : classifyIPv4(value);
  }
  if (family === 6) {
    const groups = parseIPv6(bare);
    return groups === null ? 'not an IP address' : classifyIPv6(groups);
  }
  return 'not an IP address';
}

/** True when `hostname` (from a parsed URL) is an IP literal rather than a name to resolve. */
export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) !== 0;
}
