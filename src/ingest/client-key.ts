import type { IncomingHttpHeaders } from 'node:http';

/**
 * Where an SDK puts the project's client key (its DSN "public key"), in the order they are consulted:
 *
 * - `X-Sentry-Auth: Sentry sentry_key=<key>, sentry_version=7, sentry_client=<sdk>/<version>`
 *   (server SDKs);
 * - `Authorization: Sentry sentry_key=<key>, …` (same syntax; a `Bearer` value is not a client key),
 *   or `Authentication: Sentry …` (raven-js 0.x); any `sentry_version` (2.0 to 7), `sentry_secret`,
 *   `sentry_client` and `sentry_timestamp` are accepted and ignored, values may be quoted;
 * - `X-Client-Auth: <key>` or `X-Client-Auth: Sentry sentry_key=<key>[, sentry_version=7, …]`
 *   (the tracker's own header, for clients that are not Sentry SDKs);
 * - the `sentry_key` query parameter (browser SDKs, which avoid custom headers to skip CORS
 *   preflights);
 * - the envelope header's `dsn` (SDKs sending through a tunnel); known only once the body's first
 *   line has been read, see `keyFromDsn`.
 *
 * A key is the project's UUID client_key, with or without dashes, in any letter case: DSNs carry the
 * 32-hex form because SDK DSN parsers only accept word characters there.
 */
export interface ClientKeySource {
  key: string;
  from: 'x-sentry-auth' | 'authorization' | 'x-client-auth' | 'query' | 'dsn';
}

const SENTRY_KEY = /(?:^|[\s,])sentry_key\s*=\s*"?([^,\s"]+)/i;

/** `sentry_key=<key>` in an auth header; old clients quote values or leave out the `Sentry ` prefix. */
function keyFromSentryAuth(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 2048) return undefined;
  const match = SENTRY_KEY.exec(value);
  return match ? match[1] : undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function clientKeyFromRequest(
  headers: IncomingHttpHeaders,
  sentryKeyParam: string | undefined,
): ClientKeySource | undefined {
  const sentryAuth = keyFromSentryAuth(headerValue(headers['x-sentry-auth']));
  if (sentryAuth) return { key: sentryAuth, from: 'x-sentry-auth' };

  const authorization = headerValue(headers.authorization);
  if (authorization && /^\s*sentry\s/i.test(authorization)) {
    const key = keyFromSentryAuth(authorization);
    if (key) return { key, from: 'authorization' };
  }

  // raven-js 0.x sent its auth header as `Authentication`.
  const authentication = keyFromSentryAuth(headerValue(headers.authentication));
  if (authentication) return { key: authentication, from: 'authorization' };

  const clientAuth = headerValue(headers['x-client-auth'])?.trim();
  if (clientAuth) {
    const key = /^sentry\s/i.test(clientAuth) ? keyFromSentryAuth(clientAuth) : clientAuth;
    if (key) return { key, from: 'x-client-auth' };
  }

  if (sentryKeyParam) return { key: sentryKeyParam, from: 'query' };
  return undefined;
}

const DSN = /^[a-z][a-z0-9+.-]*:\/\/([^:@/]+)(?::[^@/]*)?@[^/?#]+(?:\/[^?#]*)?\/(\d+)\/?$/i;

/** `https://<key>@host[:port][/prefix]/<project id>` → its key and project id. */
export function keyFromDsn(dsn: unknown): { key: string; projectId: number } | undefined {
  if (typeof dsn !== 'string') return undefined;
  const match = DSN.exec(dsn.trim());
  if (!match) return undefined;
  try {
    return { key: decodeURIComponent(match[1]), projectId: Number(match[2]) };
  } catch {
    return undefined; // a malformed %-escape: not a key
  }
}

const HEX32 = /^[0-9a-f]{32}$/;

/** A client key (or event id) in its canonical dashed lowercase UUID form, or undefined if it is not one. */
export function canonicalUuid(value: string): string | undefined {
  const hex = value.length === 36 ? value.replace(/-/g, '').toLowerCase() : value.toLowerCase();
  if (!HEX32.test(hex)) return undefined;
  if (
    value.length === 36 &&
    (value[8] !== '-' || value[13] !== '-' || value[18] !== '-' || value[23] !== '-')
  ) {
    return undefined;
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
