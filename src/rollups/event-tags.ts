import type { NormalisedEvent } from '../events/normalised-event';

import { MAX_TAG_KEY_LENGTH, MAX_TAG_VALUE_LENGTH, TAG_KEY_PATTERN } from '../search/tag-keys';

export { MAX_TAG_KEY_LENGTH, MAX_TAG_VALUE_LENGTH, TAG_KEY_PATTERN };

/** Tags the tracker derives itself; an SDK tag of the same name does not replace them. */
export const BUILT_IN_TAGS = [
  'environment',
  'release',
  'level',
  'user',
  'user.email',
  'server_name',
  'url',
  'transaction',
  'browser',
  'browser.name',
  'os',
  'os.name',
  'runtime',
  'runtime.name',
  'device',
] as const;

/**
 * Who an event affected, as Sentry spells its `user` tag: the user id, else the e-mail, else the IP
 * address, else the username. Null when the event names nobody.
 */
export function userTagValue(user: NormalisedEvent['user']): string | null {
  if (!user) return null;
  for (const [field, prefix] of [
    ['id', 'id'],
    ['email', 'email'],
    ['ip_address', 'ip'],
    ['username', 'username'],
  ] as const) {
    const value = scalar(user[field]);
    if (value !== null) return `${prefix}:${value}`;
  }
  return null;
}

/** The tags an event is counted under: the built-in ones, then the SDK's own. */
export function eventTags(event: NormalisedEvent): Map<string, string> {
  const tags = new Map<string, string>();
  const put = (key: string, value: unknown) => {
    const text = scalar(value);
    if (text === null || tags.has(key)) return;
    if (key.length > MAX_TAG_KEY_LENGTH || !TAG_KEY_PATTERN.test(key)) return;
    if (text.length > MAX_TAG_VALUE_LENGTH || /[\r\n]/.test(text)) return;
    tags.set(key, text);
  };
  put('environment', event.environment);
  put('release', event.release);
  put('level', event.level);
  put('user', userTagValue(event.user));
  // Searchable by itself (user.email:…) although the user tag names the id when there is one.
  put('user.email', event.user?.email);
  put('server_name', event.server_name);
  put('url', requestUrl(event.request));
  put('transaction', event.transaction);
  for (const name of ['browser', 'os', 'runtime'] as const) {
    const context = record(event.contexts[name]);
    const contextName = scalar(context?.name);
    if (!contextName) continue;
    const version = scalar(context?.version);
    put(name, version ? `${contextName} ${version}` : contextName);
    put(`${name}.name`, contextName);
  }
  put('device', scalar(record(event.contexts.device)?.model));
  for (const [key, value] of Object.entries(event.tags)) {
    if (!(BUILT_IN_TAGS as readonly string[]).includes(key)) put(key, value);
  }
  return tags;
}

/** The request's URL without its query string or fragment, which would make every value distinct. */
function requestUrl(request: NormalisedEvent['request']): string | null {
  const url = scalar(request?.url);
  if (!url) return null;
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

function scalar(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return null;
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
