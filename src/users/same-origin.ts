import type { Request } from 'express';

/** Methods that must not change anything, so a browser may send them cross-site with the cookie. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function changesState(request: Request): boolean {
  return !SAFE_METHODS.has(request.method);
}

/** `https://host[:port]` of PUBLIC_URL: the dashboard's address as the operator published it. */
export function originOf(url: string): string {
  return normalisedOrigin(url) ?? url;
}

/**
 * How a browser-sent request relates to this site:
 * - `same-origin`: the browser vouches for it (Sec-Fetch-Site: same-origin, or none for what the user
 *   did directly), or its Origin is this server's own (as the client addressed it: Host and, behind a
 *   proxy, X-Forwarded-Proto) or PUBLIC_URL's;
 * - `cross-site`: the browser says it comes from elsewhere (another site, another subdomain, an
 *   opaque `null` origin);
 * - `unknown`: neither header, as from scripts and command-line clients, or browsers from before
 *   Sec-Fetch-Site that leave Origin out.
 *
 * No page can set Sec-Fetch-* or Origin itself, which is what makes them proof; Sec-Fetch-Site is
 * decided by the browser, so it wins over Origin when both are present.
 */
export function requestSite(
  request: Request,
  publicOrigin: string,
): 'same-origin' | 'cross-site' | 'unknown' {
  const site = request.get('sec-fetch-site')?.toLowerCase();
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? 'same-origin' : 'cross-site';
  const header = request.get('origin');
  if (header === undefined) return 'unknown';
  const origin = normalisedOrigin(header);
  if (origin === undefined) return 'cross-site';
  if (origin === publicOrigin) return 'same-origin';
  const own = [request.get('host'), request.host]
    .filter((host): host is string => Boolean(host))
    .map((host) => normalisedOrigin(`${request.protocol}://${host}`));
  return own.includes(origin) ? 'same-origin' : 'cross-site';
}

/** Lower case, default port left out, as browsers write Origin; undefined for `null` and garbage. */
function normalisedOrigin(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
