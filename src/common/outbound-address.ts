import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIpLiteral, RefusalReason, refusalReason } from './ip-ranges';

/**
 * The SSRF guard shared by every request the server sends on a user's behalf (alert webhooks and
 * chat, uptime checks): which destination may be connected to. The callers decide what a refusal
 * becomes (a delivery error, a failed check, a 400) through `refuse`.
 */
export type RefuseAddress = (target: string, reason: RefusalReason) => Error;

/** Why an address may not be connected to, or null: `refusalReason` unless a caller narrows it. */
export type AddressPolicy = (address: string) => RefusalReason | null;

/**
 * A `dns.lookup` replacement that refuses the connection when any answer is a forbidden address.
 * It runs at connect time, inside the socket's own resolution, so the address checked is the address
 * connected to: a name that resolves to 127.0.0.1 (or changes its answer between a check and the
 * connection) cannot slip through.
 */
export function guardedLookup(refuse: RefuseAddress, policy: AddressPolicy = refusalReason): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      for (const entry of list) {
        const reason = policy(entry.address);
        if (reason !== null) return callback(refuse(`${hostname} (${entry.address})`, reason), '', 0);
      }
      if (list.length === 0) {
        const empty = Object.assign(new Error(`${hostname} did not resolve to any address`), {
          code: 'ENOTFOUND',
        });
        return callback(empty, '', 0);
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * Why a URL's host, written as an IP literal, is refused, or null. The URL parser has already turned
 * decimal, hex and octal IPv4 spellings into dotted quads; Node never passes a literal address to
 * `lookup`, so literals are checked here, before connecting.
 */
export function literalRefusal(url: URL, policy: AddressPolicy = refusalReason): RefusalReason | null {
  return isIpLiteral(url.hostname) ? policy(url.hostname) : null;
}

/**
 * The first refused address `hostname` resolves to now, or null (also when it does not resolve:
 * a site may be unreachable when it is configured). For early answers to a user (a 400 on save);
 * the connection is still guarded by `guardedLookup`, which sees the address actually used.
 */
export async function resolvesToRefused(
  hostname: string,
): Promise<{ address: string; reason: RefusalReason } | null> {
  if (isIpLiteral(hostname)) {
    const reason = refusalReason(hostname);
    return reason === null ? null : { address: hostname, reason };
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(hostname, { all: true });
  } catch {
    return null;
  }
  for (const entry of addresses) {
    const reason = refusalReason(entry.address);
    if (reason !== null) return { address: entry.address, reason };
  }
  return null;
}
