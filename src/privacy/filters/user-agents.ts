/**
 * What the web-crawler and legacy-browser filters read from a User-Agent: plain substring searches
 * and digit scans, no regular expressions, on at most the first 512 characters (real user agents
 * are shorter; the rest of a longer one is padding).
 */

export const MAX_USER_AGENT_SCAN = 512;

/**
 * Names crawlers, monitors and link previewers put in their user agent, lowercase. The generic
 * `bot`, `crawler` and `spider` catch most; the rest name themselves otherwise.
 */
const CRAWLER_MARKS = [
  'bot/',
  'bot;',
  'bot)',
  'bot ',
  'bot-',
  'bot_',
  'bots',
  'crawler',
  'crawling',
  'spider',
  'slurp',
  'sogou',
  'facebookexternalhit',
  'facebookcatalog',
  'ia_archiver',
  'mediapartners-google',
  'adsbot-google',
  'google-adwords',
  'google-inspectiontool',
  'bingpreview',
  'pingdom',
  'lytics',
  'hatena',
  'yandex',
  'petalsearch',
  'uptimerobot',
  'statuscake',
];

/** Real phones and people whose user agent contains a crawler mark. */
const NOT_CRAWLERS = ['cubot', 'slackbot 1.'];

export function isWebCrawler(userAgent: string): boolean {
  const ua = userAgent.slice(0, MAX_USER_AGENT_SCAN).toLowerCase();
  for (const mark of CRAWLER_MARKS) {
    if (ua.includes(mark)) {
      for (const exception of NOT_CRAWLERS) if (ua.includes(exception)) return false;
      return true;
    }
  }
  return false;
}

/** The legacy-browser choices, as Sentry names them. */
export const LEGACY_BROWSERS = [
  'ie_pre_9',
  'ie9',
  'ie10',
  'ie11',
  'safari_pre_6',
  'opera_pre_15',
  'opera_mini_pre_8',
  'android_pre_4',
  'edge_pre_79',
] as const;
export type LegacyBrowser = (typeof LEGACY_BROWSERS)[number];

export function isLegacyBrowserName(name: string): name is LegacyBrowser {
  return (LEGACY_BROWSERS as readonly string[]).includes(name);
}

/** The major version written right after `token`, or NaN. */
function versionAfter(ua: string, token: string): number {
  const at = ua.indexOf(token);
  if (at === -1) return NaN;
  let value = 0;
  let digits = 0;
  for (let i = at + token.length; i < ua.length && digits < 6; i++) {
    const c = ua.charCodeAt(i);
    if (c < 48 || c > 57) break;
    value = value * 10 + (c - 48);
    digits++;
  }
  return digits === 0 ? NaN : value;
}

/** Which legacy-browser choice a user agent falls under, if any. */
export function legacyBrowserOf(userAgent: string): LegacyBrowser | undefined {
  const ua = userAgent.slice(0, MAX_USER_AGENT_SCAN);
  const msie = versionAfter(ua, 'MSIE ');
  const ie = msie >= 0 ? msie : ua.includes('Trident/') ? versionAfter(ua, 'rv:') : NaN;
  if (ie >= 0) {
    if (ie < 9) return 'ie_pre_9';
    if (ie <= 11) return (['ie9', 'ie10', 'ie11'] as const)[ie - 9];
    return undefined;
  }
  // EdgeHTML (Edge 12 to 18) writes `Edge/`; Chromium's Edge (79 on) writes `Edg/`.
  if (versionAfter(ua, 'Edge/') >= 0) return 'edge_pre_79';
  const operaMini = versionAfter(ua, 'Opera Mini/');
  if (operaMini >= 0) return operaMini < 8 ? 'opera_mini_pre_8' : undefined;
  if (ua.startsWith('Opera/') || ua.includes(' Opera ')) {
    const opera = versionAfter(ua, 'Version/');
    const version = opera >= 0 ? opera : versionAfter(ua, 'Opera/');
    return version < 15 ? 'opera_pre_15' : undefined;
  }
  if (ua.includes('Chrome/') || ua.includes('CriOS/') || ua.includes('Firefox/') || ua.includes('FxiOS/')) {
    return undefined;
  }
  // The stock Android browser: its version is the system's.
  const android = versionAfter(ua, 'Android ');
  if (android >= 0) return android < 4 ? 'android_pre_4' : undefined;
  if (ua.includes('Safari/')) {
    const safari = versionAfter(ua, 'Version/');
    return safari < 6 ? 'safari_pre_6' : undefined;
  }
  return undefined;
}
