import { UAParser } from 'ua-parser-js';

/** Longer User-Agent strings are not parsed (real ones are a few hundred characters). */
const MAX_USER_AGENT_LENGTH = 1024;

/** The User-Agent header of a request interface: headers as an object or as [name, value] pairs. */
export function userAgentOf(request: Record<string, unknown> | null): string | null {
  const headers = request?.headers;
  let value: unknown;
  if (Array.isArray(headers)) {
    const pair = headers.find(
      (entry): entry is [string, unknown] =>
        Array.isArray(entry) && typeof entry[0] === 'string' && entry[0].toLowerCase() === 'user-agent',
    );
    value = pair?.[1];
  } else if (headers !== null && typeof headers === 'object') {
    const name = Object.keys(headers).find((key) => key.toLowerCase() === 'user-agent');
    value = name === undefined ? undefined : (headers as Record<string, unknown>)[name];
  }
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_USER_AGENT_LENGTH
    ? value
    : null;
}

/**
 * Browser and OS contexts from the request's User-Agent, as Sentry derives them, for events whose
 * SDK did not send them (browser SDKs never do). Contexts the SDK sent are kept as they are.
 */
export function withUserAgentContexts(
  contexts: Record<string, unknown>,
  request: Record<string, unknown> | null,
): Record<string, unknown> {
  if (contexts.browser !== undefined && contexts.os !== undefined) return contexts;
  const userAgent = userAgentOf(request);
  if (!userAgent) return contexts;
  const { browser, os } = new UAParser(userAgent).getResult();
  const derived: Record<string, unknown> = { ...contexts };
  if (contexts.browser === undefined && browser.name) {
    derived.browser = {
      type: 'browser',
      name: browser.name,
      ...(browser.version ? { version: browser.version } : {}),
    };
  }
  if (contexts.os === undefined && os.name) {
    derived.os = { type: 'os', name: os.name, ...(os.version ? { version: os.version } : {}) };
  }
  return derived;
}
