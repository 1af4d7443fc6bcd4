import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIpLiteral, RefusalReason, refusalReason } from './ip-ranges';

/**
 * The SSRF guard shared by every request the server sends on a user's behalf (alert webhooks and
 * chat, uptime checks): which destination may be connected to. The callers decide what a refusal
 * becomes (a delivery error, a failed check, a 400) through `refuse`.
 */
export type RefuseAddress = (target: string, reason: RefusalReason, resolved: boolean) => Error;

/**
 * The words of a refusal: `target` is the host as the user wrote it. A name is refused by the kind
 * of address it resolves to, never by the address: the message is shown to every member, and
 * addresses would tell them how internal names resolve.
 */
export function refusalWords(target: string, reason: RefusalReason, resolved: boolean): string {
  return resolved
    ? `refused to connect to ${target}: it resolves to a ${reason} address, which is not allowed`
    : `refused to connect to ${target}: ${reason} addresses are not allowed`;
}

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
        if (reason !== null) return callback(refuse(hostname, reason, true), '', 0);
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
 * Why `hostname` is refused now: the kind of its first refused address (`resolved`: it is a name
 * that resolves to one), or null (also when it does not resolve: a site may be unreachable when it
 * is configured). For early answers to a user (a 400 on save), which name the kind and never the
 * address; the connection is still guarded by `guardedLookup`, which sees the address actually used.
 */
export async function resolvesToRefused(
  hostname: string,
): Promise<{ reason: RefusalReason; resolved: boolean } | null> {
  if (isIpLiteral(hostname)) {
    const reason = refusalReason(hostname);
    return reason === null ? null : { reason, resolved: false };
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(hostname, { all: true });
  } catch {
    return null;
  }
  for (const entry of addresses) {
    const reason = refusalReason(entry.address);
    if (reason !== null) return { reason, resolved: true };
  }
  return null;
}
