import { isEmail } from 'class-validator';
import { InvalidInputError } from '../common/domain-errors';
import {
  looksMasked,
  MASK,
  maskHeaderValues,
  maskSecret,
  originOf,
  restoreHeaders,
} from '../common/secret-mask';
import type { ChannelType } from './channel.entity';

/** A config problem, phrased for the client. */
export class ChannelConfigError extends InvalidInputError {}

export interface WebhookConfig {
  url: string;
  /** Key of the HMAC-SHA256 signature sent with each delivery. */
  secret?: string;
  headers?: Record<string, string>;
}

export interface EmailConfig {
  to: string[];
}

export interface ChatConfig {
  webhook_url: string;
}

export type ChannelConfig = WebhookConfig | EmailConfig | ChatConfig;

export const MAX_EMAIL_RECIPIENTS = 50;
const MAX_URL_LENGTH = 2048;
const MAX_SECRET_LENGTH = 256;
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE_LENGTH = 4096;
/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the HTTP client owns: letting a channel set them would break or smuggle requests. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'content-type',
]);

const ALLOWED_KEYS: Record<ChannelType, readonly string[]> = {
  webhook: ['url', 'secret', 'headers'],
  email: ['to'],
  chat: ['webhook_url'],
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function httpUrl(value: unknown, field: string): string {
  const message = `config.${field} must be an http(s) URL`;
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_URL_LENGTH) {
    throw new ChannelConfigError(message);
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ChannelConfigError(message);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new ChannelConfigError(message);
  }
  return value.trim();
}

function validateWebhook(config: Record<string, unknown>): WebhookConfig {
  const result: WebhookConfig = { url: httpUrl(config.url, 'url') };
  if (config.secret !== undefined && config.secret !== null) {
    const secret = config.secret;
    if (typeof secret !== 'string' || secret.length === 0 || secret.length > MAX_SECRET_LENGTH) {
      throw new ChannelConfigError(
        `config.secret must be a non-empty string of at most ${MAX_SECRET_LENGTH} characters`,
      );
    }
    result.secret = secret;
  }
  if (config.headers !== undefined && config.headers !== null) {
    const headers = config.headers;
    if (!isPlainObject(headers)) throw new ChannelConfigError('config.headers must be an object of strings');
    const entries = Object.entries(headers);
    if (entries.length > MAX_HEADERS) {
      throw new ChannelConfigError(`config.headers may have at most ${MAX_HEADERS} entries`);
    }
    const clean: Record<string, string> = {};
    for (const [name, value] of entries) {
      if (!HEADER_NAME.test(name))
        throw new ChannelConfigError(`config.headers: "${name}" is not a valid header name`);
      if (RESERVED_HEADERS.has(name.toLowerCase())) {
        throw new ChannelConfigError(`config.headers: ${name} cannot be set`);
      }
      if (typeof value !== 'string' || value.length > MAX_HEADER_VALUE_LENGTH || /[\r\n\0]/.test(value)) {
        throw new ChannelConfigError(`config.headers.${name} must be a single-line string`);
      }
      clean[name] = value;
    }
    result.headers = clean;
  }
  return result;
}

function validateEmail(config: Record<string, unknown>): EmailConfig {
  const to = config.to;
  if (!Array.isArray(to) || to.length === 0) {
    throw new ChannelConfigError('config.to must be a non-empty list of e-mail addresses');
  }
  if (to.length > MAX_EMAIL_RECIPIENTS) {
    throw new ChannelConfigError(`config.to may have at most ${MAX_EMAIL_RECIPIENTS} addresses`);
  }
  const seen = new Set<string>();
  const addresses: string[] = [];
  for (const entry of to) {
    const address = typeof entry === 'string' ? entry.trim() : '';
    if (!isEmail(address)) {
      throw new ChannelConfigError(`config.to: ${JSON.stringify(entry)} is not a valid e-mail address`);
    }
    if (!seen.has(address.toLowerCase())) {
      seen.add(address.toLowerCase());
      addresses.push(address);
    }
  }
  return { to: addresses };
}

/**
 * Checks a channel's config against its type and returns the normalised config to store.
 * Unknown keys are refused rather than stored: a typo (`webhookUrl`) would otherwise fail silently
 * at the first alert.
 */
export function validateChannelConfig(type: ChannelType, config: unknown): ChannelConfig {
  if (!isPlainObject(config)) throw new ChannelConfigError('config must be an object');
  const unknownKey = Object.keys(config).find((key) => !ALLOWED_KEYS[type].includes(key));
  if (unknownKey !== undefined) {
    throw new ChannelConfigError(
      `config.${unknownKey} is not a setting of ${type} channels (allowed: ${ALLOWED_KEYS[type].join(', ')})`,
    );
  }
  switch (type) {
    case 'webhook':
      return validateWebhook(config);
    case 'email':
      return validateEmail(config);
    case 'chat':
      return { webhook_url: httpUrl(config.webhook_url, 'webhook_url') };
  }
}

/**
 * Secrets are write-only: the API shows them masked and never in full. What counts as a secret:
 * - `secret` (webhook): the HMAC key;
 * - `headers` (webhook): every value, since any header may carry a credential (`Authorization`,
 *   `X-Api-Key`, …) and the service cannot tell which ones do;
 * - `url` (webhook): credentials in the URL (`https://user:pass@host`) and the query string
 *   (`?token=…`); the scheme, host and path stay readable so that an operator sees where it goes;
 * - `webhook_url` (chat): everything after the host, since an incoming-webhook URL is itself the
 *   bearer credential (Slack's `/services/T…/B…/…`, Mattermost's `/hooks/<key>`).
 */
const SECRET_FIELDS = ['secret', 'headers', 'url', 'webhook_url'] as const;
export { maskSecret };

/** `https://user:pass@host/path?token=x` → `https://****:****@host/path?****`. */
function maskUrlCredentials(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return MASK;
  }
  if (!url.username && !url.password && !url.search) return value;
  if (url.username) url.username = MASK;
  if (url.password) url.password = MASK;
  if (url.search) url.search = MASK;
  return url.toString();
}

/** `https://hooks.slack.com/services/T/B/X` → `https://hooks.slack.com/…****`. */
function maskChatUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}/…${MASK}`;
  } catch {
    return MASK;
  }
}

/** How a stored secret field is shown; `undefined` for a value that is not of the expected shape. */
function maskField(field: (typeof SECRET_FIELDS)[number], value: unknown): unknown {
  switch (field) {
    case 'secret':
      return typeof value === 'string' ? maskSecret(value) : undefined;
    case 'headers':
      return isPlainObject(value) ? maskHeaderValues(value) : undefined;
    case 'url':
      return typeof value === 'string' ? maskUrlCredentials(value) : undefined;
    case 'webhook_url':
      return typeof value === 'string' ? maskChatUrl(value) : undefined;
  }
}

/** The config as the API shows it: secrets are never returned in full. */
export function maskConfig(config: Record<string, unknown>): Record<string, unknown> {
  const view = { ...config };
  for (const field of SECRET_FIELDS) {
    if (view[field] !== undefined && view[field] !== null)
      view[field] = maskField(field, view[field]) ?? MASK;
  }
  return view;
}

function maskedUrlError(field: string, existing: boolean): ChannelConfigError {
  return new ChannelConfigError(
    existing
      ? `config.${field} is a masked value: send the new URL, or the masked value unchanged`
      : `config.${field} is a masked value: send the URL itself`,
  );
}

/**
 * A client that edits a channel cannot send its secrets back, only what it was shown. So, for each
 * secret field: left out means "keep the stored value", the masked value unchanged means the same,
 * `null` removes it, anything else replaces it. A masked-looking value that is not the mask of the
 * stored one is refused, so a mask is never stored as if it were the secret. Inside `headers`, each
 * value is matched against the stored header of the same name; a header left out of a `headers`
 * object that is sent is removed. Other settings are replaced as sent.
 *
 * Header values travel in clear to `url`: a stored one is only kept while `url` stays on the same
 * origin. Otherwise editing the URL would send the stored credentials to a host of the editor's
 * choosing, and reading them back would be one PATCH away.
 */
export function restoreMaskedSecrets(submitted: unknown, stored: Record<string, unknown>): unknown {
  if (!isPlainObject(submitted)) return submitted;
  const result: Record<string, unknown> = { ...submitted };
  let keptHeaders: string[] = [];
  for (const field of SECRET_FIELDS) {
    if (!(field in submitted)) {
      if (stored[field] === undefined) continue;
      result[field] = stored[field];
      if (field === 'headers' && isPlainObject(stored.headers)) keptHeaders = Object.keys(stored.headers);
      continue;
    }
    const value = submitted[field];
    if (field === 'headers') {
      if (isPlainObject(value)) {
        const restored = restoreHeaders(
          value,
          stored.headers,
          (name) =>
            new ChannelConfigError(
              `config.headers.${name} is a masked value: send the new value, or the masked value unchanged`,
            ),
        );
        result.headers = restored.headers;
        keptHeaders = restored.kept;
      }
    } else if (typeof value === 'string') {
      if (stored[field] !== undefined && value === maskField(field, stored[field])) {
        result[field] = stored[field];
      } else if (field === 'secret' && looksMasked(value)) {
        throw new ChannelConfigError(
          'config.secret is a masked value: send the new secret, or the masked value unchanged',
        );
      } else if (field !== 'secret' && value.includes(MASK)) {
        throw maskedUrlError(field, true);
      }
    }
  }
  if (keptHeaders.length > 0 && originOf(result.url) !== originOf(stored.url)) {
    throw new ChannelConfigError(
      `config.headers.${keptHeaders[0]} must be sent again when config.url moves to another host`,
    );
  }
  return result;
}

/** For new channels: a masked-looking value is almost certainly a copy of another channel's view. */
export function rejectMaskedSecrets(submitted: unknown): void {
  if (!isPlainObject(submitted)) return;
  if (typeof submitted.secret === 'string' && looksMasked(submitted.secret)) {
    throw new ChannelConfigError('config.secret is a masked value: send the secret itself');
  }
  for (const field of ['url', 'webhook_url'] as const) {
    const value = submitted[field];
    if (typeof value === 'string' && value.includes(MASK)) throw maskedUrlError(field, false);
  }
  if (isPlainObject(submitted.headers)) {
    for (const [name, value] of Object.entries(submitted.headers)) {
      if (typeof value === 'string' && looksMasked(value)) {
        throw new ChannelConfigError(`config.headers.${name} is a masked value: send the value itself`);
      }
    }
  }
}
