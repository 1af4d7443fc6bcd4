import { isIP } from 'node:net';
import { isFromBrowserExtension } from './browser-extensions';
import { messagesOf, releaseOf, requestUrlOf, userAgentOf, userIpOf } from './event-facts';
import { CompiledGlob, compileGlob } from './glob';
import { compileIpRanges, IpMatcher } from './ip-ranges';
import { isWebCrawler, LegacyBrowser, legacyBrowserOf } from './user-agents';

/** A project's inbound filters, as stored and as the API shows them. */
export interface InboundFilterSettings {
  browserExtensions: boolean;
  localhost: boolean;
  webCrawlers: boolean;
  /** The legacy-browser choices that are on; none: the filter is off. */
  legacyBrowsers: LegacyBrowser[];
  /** Release globs (case-sensitive). */
  releases: string[];
  /** Error-message globs (any case). */
  errorMessages: string[];
  /** Client addresses and CIDR ranges. */
  clientIps: string[];
}

export const NO_INBOUND_FILTERS: InboundFilterSettings = {
  browserExtensions: false,
  localhost: false,
  webCrawlers: false,
  legacyBrowsers: [],
  releases: [],
  errorMessages: [],
  clientIps: [],
};

/**
 * Why an event was filtered: the reason its `filtered` outcome is counted under (Sentry's filter
 * names, with `_` for `-`, as outcome reasons are `[a-z0-9_]`).
 */
export const FILTER_REASONS = [
  'ip_address',
  'release_version',
  'localhost',
  'web_crawlers',
  'legacy_browsers',
  'browser_extensions',
  'error_message',
] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

export function anyFilterOn(settings: InboundFilterSettings): boolean {
  return (
    settings.browserExtensions ||
    settings.localhost ||
    settings.webCrawlers ||
    settings.legacyBrowsers.length > 0 ||
    settings.releases.length > 0 ||
    settings.errorMessages.length > 0 ||
    settings.clientIps.length > 0
  );
}

const LOCAL_IPS = new Set(['127.0.0.1', '::1', '[::1]', '0.0.0.0']);

/** 127.0.0.0/8, written as an address (not a name such as `127.example.com`). */
function isLoopbackV4(address: string): boolean {
  return address.startsWith('127.') && isIP(address) === 4;
}

function isLocalHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || LOCAL_IPS.has(host) || isLoopbackV4(host);
}

function fromLocalhost(event: Record<string, unknown>): boolean {
  const ip = userIpOf(event);
  if (ip !== undefined && (LOCAL_IPS.has(ip) || isLoopbackV4(ip))) return true;
  const url = requestUrlOf(event);
  const host = url === undefined ? undefined : hostOf(url);
  return host !== undefined && isLocalHost(host);
}

/**
 * The host of an absolute URL (`scheme://[user@]host[:port]/…`), lowercased; IPv6 hosts keep their
 * brackets. A scan, not a URL object: this runs for every event of a project with the filter on.
 */
function hostOf(url: string): string | undefined {
  const schemeEnd = url.indexOf('://');
  if (schemeEnd <= 0 || schemeEnd > 32) return undefined;
  const start = schemeEnd + 3;
  let end = start;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === 47 || c === 63 || c === 35) break; // / ? #
    end++;
  }
  let authority = url.slice(start, end);
  const at = authority.lastIndexOf('@');
  if (at !== -1) authority = authority.slice(at + 1);
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    return close === -1 ? undefined : authority.slice(0, close + 1);
  }
  const colon = authority.indexOf(':');
  return (colon === -1 ? authority : authority.slice(0, colon)).toLowerCase();
}

/**
 * A project's filters, compiled once per settings change. `check` reads only what its filters
 * need, cheapest first; the client address is asked for only when an IP filter is on.
 */
export class CompiledInboundFilters {
  private readonly legacy: ReadonlySet<LegacyBrowser>;
  private readonly releases: CompiledGlob[];
  private readonly messages: CompiledGlob[];
  private readonly ips: IpMatcher | undefined;
  private readonly readsUserAgent: boolean;

  /** Throws GlobSyntaxError or IpRangeSyntaxError for a setting that does not parse. */
  constructor(readonly settings: InboundFilterSettings) {
    this.legacy = new Set(settings.legacyBrowsers);
    this.releases = settings.releases.map((glob) => compileGlob(glob, { caseInsensitive: false }));
    this.messages = settings.errorMessages.map((glob) => compileGlob(glob, { caseInsensitive: true }));
    this.ips = settings.clientIps.length > 0 ? compileIpRanges(settings.clientIps) : undefined;
    this.readsUserAgent = settings.webCrawlers || this.legacy.size > 0;
  }

  get needsClientAddress(): boolean {
    return this.ips !== undefined;
  }

  check(event: Record<string, unknown>, clientAddress: string | undefined): FilterReason | undefined {
    if (this.ips && clientAddress !== undefined && this.ips.matches(clientAddress)) return 'ip_address';
    if (this.releases.length > 0) {
      const release = releaseOf(event);
      if (release !== undefined && this.releases.some((glob) => glob.matches(release)))
        return 'release_version';
    }
    if (this.settings.localhost && fromLocalhost(event)) return 'localhost';
    if (this.readsUserAgent) {
      const userAgent = userAgentOf(event);
      if (userAgent !== undefined) {
        if (this.settings.webCrawlers && isWebCrawler(userAgent)) return 'web_crawlers';
        if (this.legacy.size > 0) {
          const legacy = legacyBrowserOf(userAgent);
          if (legacy !== undefined && this.legacy.has(legacy)) return 'legacy_browsers';
        }
      }
    }
    if (this.settings.browserExtensions && isFromBrowserExtension(event)) return 'browser_extensions';
    if (this.messages.length > 0) {
      for (const message of messagesOf(event)) {
        const folded = message.toLowerCase();
        for (const glob of this.messages) if (glob.matchesFolded(folded)) return 'error_message';
      }
    }
    return undefined;
  }
}
