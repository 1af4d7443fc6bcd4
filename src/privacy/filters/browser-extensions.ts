import { exceptionsOf, thrownFromOf } from './event-facts';

/**
 * Errors browser extensions and injected scripts cause on a page: thrown from an extension's own
 * URL, or with a message known to come from a popular extension or toolbar (the list Sentry's
 * filter documents).
 */
const EXTENSION_SOURCES = [
  'chrome-extension://',
  'moz-extension://',
  'ms-browser-extension://',
  'safari-extension://',
  'safari-web-extension://',
  'webkit-masked-url://',
  'chrome://',
  'resource://',
  'graph.facebook.com',
  'connect.facebook.net',
  'eatdifferent.com',
  'static.woopra.com',
  'loading.retry.widdit.com',
];

const EXTENSION_MESSAGES = [
  'top.GLOBALS',
  'originalCreateNotification',
  'canvas.contentDocument',
  'MyApp_RemoveAllHighlights',
  "Can't find variable: ZiteReader",
  'jigsaw is not defined',
  'ComboSearch is not defined',
  'http://loading.retry.widdit.com/',
  'atomicFindClose',
  'fb_xd_fragment',
  'bmi_SafeAddOnload',
  'EBCallBackMessageReceived',
  'conduitPage',
  'plugin.setSuspendState is not a function',
  'Non-Error promise rejection captured with value: Object Not Found Matching Id',
  'Cannot redefine property: ethereum',
  'Cannot redefine property: solana',
];

function containsAny(value: string, needles: readonly string[]): boolean {
  for (const needle of needles) if (value.includes(needle)) return true;
  return false;
}

export function isFromBrowserExtension(event: Record<string, unknown>): boolean {
  for (const exception of exceptionsOf(event)) {
    const source = thrownFromOf(exception);
    if (source !== undefined && containsAny(source, EXTENSION_SOURCES)) return true;
    const value = exception.value;
    if (typeof value === 'string' && containsAny(value, EXTENSION_MESSAGES)) return true;
  }
  return false;
}
