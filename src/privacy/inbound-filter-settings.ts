import { InvalidInputError } from '../common/domain-errors';
import { compileGlob, GlobSyntaxError } from './filters/glob';
import { InboundFilterSettings, NO_INBOUND_FILTERS } from './filters/inbound-filters';
import { IpRangeSyntaxError, parseIpRange } from './filters/ip-ranges';
import { isLegacyBrowserName, LEGACY_BROWSERS, LegacyBrowser } from './filters/user-agents';
import type { InboundFiltersChange, InboundFiltersRow } from './inbound-filters.repository';

/** Each list holds at most this many patterns or ranges: a check costs at most that many matches. */
export const MAX_FILTER_ENTRIES = 100;

export function inboundFilterSettingsOf(row: InboundFiltersRow | undefined): InboundFilterSettings {
  if (!row) return NO_INBOUND_FILTERS;
  return {
    browserExtensions: row.browser_extensions,
    localhost: row.localhost,
    webCrawlers: row.web_crawlers,
    legacyBrowsers: row.legacy_browsers.filter(isLegacyBrowserName),
    releases: row.releases,
    errorMessages: row.error_messages,
    clientIps: row.client_ips,
  };
}

function checkList(
  name: string,
  values: string[] | undefined,
  check: (value: string) => void,
): string[] | undefined {
  if (values === undefined) return undefined;
  if (values.length > MAX_FILTER_ENTRIES) {
    throw new InvalidInputError(`${name} may hold at most ${MAX_FILTER_ENTRIES} entries`);
  }
  const unique = [...new Set(values)];
  for (const value of unique) {
    try {
      check(value);
    } catch (error) {
      if (error instanceof GlobSyntaxError || error instanceof IpRangeSyntaxError) {
        throw new InvalidInputError(`${name}: ${error.message}`);
      }
      throw error;
    }
  }
  return unique;
}

/**
 * A change as the API sends it, checked: every glob compiles, every address or range parses,
 * every browser is a known choice, no list is too long. Duplicates are dropped.
 */
export function checkedInboundFiltersChange(change: InboundFiltersChange): InboundFiltersChange {
  const glob = (caseInsensitive: boolean) => (value: string) => {
    compileGlob(value, { caseInsensitive });
  };
  return {
    ...change,
    legacy_browsers: checkList('legacy_browsers', change.legacy_browsers, (name) => {
      if (!isLegacyBrowserName(name)) {
        throw new InvalidInputError(`legacy_browsers: "${name}" is not one of ${LEGACY_BROWSERS.join(', ')}`);
      }
    }) as LegacyBrowser[] | undefined,
    releases: checkList('releases', change.releases, glob(false)),
    error_messages: checkList('error_messages', change.error_messages, glob(true)),
    client_ips: checkList('client_ips', change.client_ips, (value) => void parseIpRange(value)),
  };
}
