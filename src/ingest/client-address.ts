import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/**
 * The address of the client that sent a request, as Express works it out under `TRUST_PROXY`
 * (ingest is served ahead of Express, so it reads the setting itself): from the socket's address,
 * `X-Forwarded-For` is walked from its right end for as long as the hop is trusted. `true` trusts
 * every hop (the leftmost address wins), `false` none (the socket's address), a number that many
 * hops, a list the addresses, subnets and names it holds (`loopback`, `linklocal`, `uniquelocal`).
 */
export type ClientAddressOf = (request: IncomingMessage) => string | undefined;

const NAMED_RANGES: Record<string, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

/** `::ffff:10.0.0.1` (a v4 client on a dual-stack socket) is `10.0.0.1`. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function trustedList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const named = NAMED_RANGES[entry];
    if (named) {
      for (const [address, prefix, family] of named) list.addSubnet(address, prefix, family);
      continue;
    }
    const [address, prefixText] = entry.split('/');
    const version = isIP(address);
    if (version === 0) continue; // the configuration check refuses what Express would not take
    const family = version === 4 ? 'ipv4' : 'ipv6';
    const bits = version === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    if (Number.isInteger(prefix) && prefix >= 0 && prefix <= bits) list.addSubnet(address, prefix, family);
  }
  return list;
}

export function clientAddressResolver(trustProxy: string): ClientAddressOf {
  const setting = trustProxy.trim();
  let trust: (address: string, hop: number) => boolean;
  if (setting === 'true') trust = () => true;
  else if (setting === 'false') trust = () => false;
  else if (/^\d+$/.test(setting)) {
    const hops = Number(setting);
    trust = (_address, hop) => hop < hops;
  } else {
    const list = trustedList(setting.split(',').map((part) => part.trim()));
    trust = (address) => {
      const version = isIP(address);
      return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
    };
  }
  return (request) => {
    const socketAddress = request.socket.remoteAddress;
    if (socketAddress === undefined) return undefined;
    let address = plain(socketAddress);
    const forwarded = request.headers['x-forwarded-for'];
    if (forwarded === undefined || !trust(address, 0)) return address;
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',');
    for (let i = hops.length - 1, hop = 1; i >= 0; i--, hop++) {
      address = plain(hops[i].trim());
      if (!trust(address, hop)) return address;
    }
    return address;
  };
}
