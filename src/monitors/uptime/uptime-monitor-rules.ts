import { InvalidInputError } from '../../common/domain-errors';

/**
 * What an uptime monitor's settings may be, pure: the API answers each refusal with a 400 naming
 * the field. Where the destination address is allowed is decided elsewhere (it needs DNS).
 */
export const UPTIME_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type UptimeMethod = (typeof UPTIME_METHODS)[number];

/** A check more often than this is load on someone else's site, not monitoring. */
export const MIN_INTERVAL_SECONDS = 30;
export const MAX_INTERVAL_SECONDS = 86_400;
export const MAX_TIMEOUT_SECONDS = 60;
export const MAX_THRESHOLD = 100;
export const MAX_HEADERS = 50;
export const MAX_REQUEST_BODY_BYTES = 64 * 1024;
export const MAX_BODY_CONTAINS = 1_000;
export const MAX_TLS_EXPIRY_DAYS = 365;

/** Headers the check sets itself: a user's value would break or smuggle the request, or hide who sends it. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'user-agent',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

export interface UptimeSettings {
  name: string;
  url: string;
  method: UptimeMethod;
  headers: Record<string, string>;
  body: string | null;
  expectedStatusMin: number;
  expectedStatusMax: number;
  bodyContains: string | null;
  intervalSeconds: number;
  timeoutSeconds: number;
  tlsExpiryDays: number;
  failureThreshold: number;
  recoveryThreshold: number;
  muted: boolean;
}

export const DEFAULT_SETTINGS: Omit<UptimeSettings, 'name' | 'url'> = {
  method: 'GET',
  headers: {},
  body: null,
  expectedStatusMin: 200,
  expectedStatusMax: 299,
  bodyContains: null,
  intervalSeconds: 60,
  timeoutSeconds: 10,
  tlsExpiryDays: 14,
  failureThreshold: 1,
  recoveryThreshold: 1,
  muted: false,
};

function refuse(message: string): never {
  throw new InvalidInputError(message);
}

function inRange(field: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    refuse(`${field} must be an integer from ${min} to ${max}`);
  }
}

/** The URL a monitor checks, or why it cannot be one: http(s), a host, no credentials. */
export function checkUrl(text: string, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return refuse(`${field} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    refuse(`${field} must use http or https, not ${url.protocol.replace(':', '')}`);
  }
  if (url.username !== '' || url.password !== '') {
    refuse(`${field} must not contain credentials: send them in a header (Authorization) instead`);
  }
  if (url.hostname === '') refuse(`${field} must name a host`);
  return url;
}

export function checkHeaders(headers: unknown): Record<string, string> {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    return refuse('headers must be an object of header names and string values');
  }
  const entries = Object.entries(headers as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) refuse(`headers may hold at most ${MAX_HEADERS} headers`);
  const checked: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) refuse(`headers: "${name.slice(0, 100)}" is not a valid header name`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) refuse(`headers: ${name} is set by the check itself`);
    if (typeof value !== 'string') refuse(`headers: the value of ${name} must be a string`);
    if (/[\r\n\0]/.test(value) || value.length > 8_000) {
      refuse(`headers: the value of ${name} must be one line of at most 8000 characters`);
    }
    checked[name] = value;
  }
  return checked;
}

/** The whole of a monitor's settings, after a create or a change: every rule that spans fields. */
export function checkSettings(settings: UptimeSettings): UptimeSettings {
  const url = checkUrl(settings.url);
  inRange('interval_seconds', settings.intervalSeconds, MIN_INTERVAL_SECONDS, MAX_INTERVAL_SECONDS);
  inRange('timeout_seconds', settings.timeoutSeconds, 1, MAX_TIMEOUT_SECONDS);
  if (settings.timeoutSeconds >= settings.intervalSeconds) {
    refuse('timeout_seconds must be less than interval_seconds');
  }
  inRange('failure_threshold', settings.failureThreshold, 1, MAX_THRESHOLD);
  inRange('recovery_threshold', settings.recoveryThreshold, 1, MAX_THRESHOLD);
  inRange('tls_expiry_days', settings.tlsExpiryDays, 0, MAX_TLS_EXPIRY_DAYS);
  inRange('expected_status.min', settings.expectedStatusMin, 100, 599);
  inRange('expected_status.max', settings.expectedStatusMax, 100, 599);
  if (settings.expectedStatusMin > settings.expectedStatusMax) {
    refuse('expected_status.min must not be greater than expected_status.max');
  }
  if (settings.body !== null && Buffer.byteLength(settings.body) > MAX_REQUEST_BODY_BYTES) {
    refuse(`body must be at most ${MAX_REQUEST_BODY_BYTES} bytes`);
  }
  if (settings.body !== null && (settings.method === 'GET' || settings.method === 'HEAD')) {
    refuse(`body cannot be sent with ${settings.method}`);
  }
  if (settings.bodyContains !== null) {
    if (settings.bodyContains === '') refuse('body_contains must not be empty (null turns it off)');
    if (settings.bodyContains.length > MAX_BODY_CONTAINS) {
      refuse(`body_contains must be at most ${MAX_BODY_CONTAINS} characters`);
    }
    if (settings.method === 'HEAD') refuse('body_contains cannot be checked with HEAD (no body)');
  }
  return { ...settings, name: settings.name.trim(), url: url.href, headers: checkHeaders(settings.headers) };
}
