import { isEmail } from 'class-validator';
import type { ChannelType } from './channel.entity';

/** A config problem, phrased for the client: the service turns it into a 400. */
export class ChannelConfigError extends Error {}

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
/** A secret shorter than this is masked entirely: showing 4 characters of it would give too much away. */
const MIN_PARTLY_SHOWN_SECRET = 12;

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

/** `whsec_abcdef123456` → `whse...****`; a short secret → `****`. */
export function maskSecret(secret: string): string {
  return secret.length >= MIN_PARTLY_SHOWN_SECRET ? `${secret.slice(0, 4)}...****` : '****';
}

function looksMasked(value: string): boolean {
  return value === '****' || value.endsWith('...****');
}

/** The config as the API shows it: secrets are never returned in full. */
export function maskConfig(config: Record<string, unknown>): Record<string, unknown> {
  if (typeof config.secret !== 'string') return { ...config };
  return { ...config, secret: maskSecret(config.secret) };
}

/**
 * A client that edits a channel sends back the config it was shown, masked secret included: that
 * masked value means "keep the stored secret". A masked-looking value that does not match the
 * stored secret is refused, so a mask is never stored as if it were the secret.
 */
export function restoreMaskedSecret(submitted: unknown, stored: Record<string, unknown>): unknown {
  if (!isPlainObject(submitted) || typeof submitted.secret !== 'string') return submitted;
  const storedSecret = typeof stored.secret === 'string' ? stored.secret : undefined;
  if (storedSecret !== undefined && submitted.secret === maskSecret(storedSecret)) {
    return { ...submitted, secret: storedSecret };
  }
  if (looksMasked(submitted.secret)) {
    throw new ChannelConfigError(
      'config.secret is a masked value: send the new secret, or the masked value unchanged',
    );
  }
  return submitted;
}

/** For new channels: a masked-looking secret is almost certainly a copy of another channel's view. */
export function rejectMaskedSecret(submitted: unknown): void {
  if (isPlainObject(submitted) && typeof submitted.secret === 'string' && looksMasked(submitted.secret)) {
    throw new ChannelConfigError('config.secret is a masked value: send the secret itself');
  }
}
