import type { ScrubRule } from './scrub-rules';

/**
 * Parts of key names whose values are secrets, matched anywhere in the key, in any case: the same
 * families Sentry's server-side scrubbing uses by default (password, secret, api key, auth,
 * credentials, private key, token), plus `passphrase`.
 */
export const DEFAULT_SENSITIVE_KEY_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'api_key',
  'api-key',
  'apikey',
  'auth',
  'credentials',
  'mysql_pwd',
  'privatekey',
  'private_key',
  'private-key',
  'token',
] as const;

/** Whole key names that are secrets only on their own (`otp`, not `hotpath`). */
const SENSITIVE_KEYS = new Set([
  'otp',
  'two_factor',
  'two-factor',
  'cvv',
  'cvc',
  'cvv2',
  // A session's key outside a cookie (Django's `session_key`, a `sessionid` logged or sent in a
  // body): as good as the cookie to whoever holds it.
  'sessionid',
  'session_key',
  'session-key',
]);

const AUTHORIZATION_HEADERS = new Set(['authorization', 'proxy-authorization']);
const COOKIE_HEADERS = new Set(['cookie', 'set-cookie']);

/** Cookies that hold a session, by the names frameworks give them. */
const SESSION_COOKIES = new Set([
  'sid',
  'connect.sid',
  'express.sid',
  'express:sess',
  'phpsessid',
  'jsessionid',
  'asp.net_sessionid',
  'aspsessionid',
  'rack.session',
  'ci_session',
  'remember_token',
]);

export interface KeySettings {
  /** Extra key parts the project calls sensitive (matched like the defaults). */
  sensitiveFields: readonly string[];
  /** Key names never scrubbed (whole names, any case). */
  safeFields: readonly string[];
}

/** Remembered classifications per settings: events repeat the same few hundred keys. */
const MEMO_LIMIT = 10_000;

export class KeyClassifier {
  private readonly custom: string[];
  private readonly safe: Set<string>;
  private readonly memo = new Map<string, ScrubRule | null>();
  private readonly cookieMemo = new Map<string, ScrubRule | null>();

  constructor(settings: KeySettings) {
    this.custom = settings.sensitiveFields
      .map((field) => field.toLowerCase())
      .filter((field) => field !== '');
    this.safe = new Set(settings.safeFields.map((field) => field.toLowerCase()));
  }

  /** Why the value under this key is a secret, or null. */
  classify(key: string): ScrubRule | null {
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const rule = this.classifyUncached(key.toLowerCase());
    if (this.memo.size < MEMO_LIMIT) this.memo.set(key, rule);
    return rule;
  }

  /** As classify, for a cookie's name: session cookies too. */
  classifyCookie(name: string): ScrubRule | null {
    const known = this.cookieMemo.get(name);
    if (known !== undefined) return known;
    const lower = name.toLowerCase();
    let rule = this.classify(name);
    if (
      (rule === null || SENSITIVE_KEYS.has(lower)) &&
      !this.safe.has(lower) &&
      (lower.includes('session') || lower.includes('sess_') || SESSION_COOKIES.has(lower))
    )
      rule = 'session_cookie';
    if (this.cookieMemo.size < MEMO_LIMIT) this.cookieMemo.set(name, rule);
    return rule;
  }

  isSafe(key: string): boolean {
    return this.safe.size > 0 && this.safe.has(key.toLowerCase());
  }

  private classifyUncached(lower: string): ScrubRule | null {
    if (this.safe.has(lower)) return null;
    if (AUTHORIZATION_HEADERS.has(lower)) return 'authorization_header';
    if (COOKIE_HEADERS.has(lower)) return 'cookie_header';
    if (SENSITIVE_KEYS.has(lower)) return 'sensitive_key';
    for (const part of DEFAULT_SENSITIVE_KEY_PARTS) if (lower.includes(part)) return 'sensitive_key';
    for (const part of this.custom) if (lower.includes(part)) return 'custom_key';
    return null;
  }
}
