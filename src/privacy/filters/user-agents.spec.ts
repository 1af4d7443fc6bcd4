import { USER_AGENTS as UA } from './user-agents.fixtures';
import { isWebCrawler, legacyBrowserOf } from './user-agents';

describe('isWebCrawler', () => {
  it.each([
    'googlebot',
    'googlebotSmartphone',
    'bingbot',
    'yandex',
    'baidu',
    'duckduckbot',
    'slurp',
    'facebook',
    'adsbot',
    'ahrefs',
    'pingdom',
  ] as const)('knows %s', (name) => {
    expect(isWebCrawler(UA[name])).toBe(true);
  });

  it.each([
    'chrome120',
    'firefox121',
    'safari17',
    'iphoneSafari',
    'edge120',
    'androidChrome',
    'cubotPhone',
    'opera105',
    'ie11',
  ] as const)('lets %s through', (name) => {
    expect(isWebCrawler(UA[name])).toBe(false);
  });
});

describe('legacyBrowserOf', () => {
  it.each([
    ['ie6', 'ie_pre_9'],
    ['ie8', 'ie_pre_9'],
    ['ie9', 'ie9'],
    ['ie10', 'ie10'],
    ['ie11', 'ie11'],
    ['edge18', 'edge_pre_79'],
    ['opera12', 'opera_pre_15'],
    ['operaMini7', 'opera_mini_pre_8'],
    ['android2', 'android_pre_4'],
    ['safari5', 'safari_pre_6'],
  ] as const)('%s is %s', (name, expected) => {
    expect(legacyBrowserOf(UA[name])).toBe(expected);
  });

  it.each([
    'chrome120',
    'firefox121',
    'safari17',
    'iphoneSafari',
    'edge120',
    'androidChrome',
    'android4',
    'opera105',
    'googlebot',
  ] as const)('%s is current', (name) => {
    expect(legacyBrowserOf(UA[name])).toBeUndefined();
  });
});
