/**
 * How secrets are shown once stored: write-only, masked in every answer. Shared by the settings
 * that hold credentials (alert channels, uptime monitors' headers), so that a value shown in one
 * place is recognised as a mask in the other.
 */
export const MASK = '****';

/** A secret shorter than this is masked entirely: showing 4 characters of it would give too much away. */
const MIN_PARTLY_SHOWN_SECRET = 12;

/** `whsec_abcdef123456` → `whse...****`; a short secret → `****`. */
export function maskSecret(secret: string): string {
  return secret.length >= MIN_PARTLY_SHOWN_SECRET ? `${secret.slice(0, 4)}...${MASK}` : MASK;
}

/** True for a value that looks like a mask: it is never stored as if it were the secret. */
export function looksMasked(value: string): boolean {
  return value === MASK || value.endsWith(`...${MASK}`);
}

/** Every value masked (any header may carry a credential: `Authorization`, `X-Api-Key`, …). */
export function maskHeaderValues(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      typeof value === 'string' ? maskSecret(value) : MASK,
    ]),
  );
}

/** The stored value of header `name` (names compare without case), if it is a string. */
export function storedHeader(stored: unknown, name: string): string | undefined {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return undefined;
  const match = Object.entries(stored).find(([key]) => key.toLowerCase() === name.toLowerCase());
  return typeof match?.[1] === 'string' ? match[1] : undefined;
}

/**
 * The headers to store when a client sends back headers it was shown masked: a value that is the
 * mask of the stored header of the same name keeps the stored value (its name is in `kept`),
 * another masked-looking value is refused with the error `maskedError` makes for its name, anything
 * else replaces it.
 */
export function restoreHeaders(
  submitted: Record<string, unknown>,
  stored: unknown,
  maskedError: (name: string) => Error,
): { headers: Record<string, unknown>; kept: string[] } {
  const headers: Record<string, unknown> = {};
  const kept: string[] = [];
  for (const [name, value] of Object.entries(submitted)) {
    const previous = storedHeader(stored, name);
    if (typeof value === 'string' && previous !== undefined && value === maskSecret(previous)) {
      headers[name] = previous;
      kept.push(name);
    } else if (typeof value === 'string' && looksMasked(value)) {
      throw maskedError(name);
    } else {
      headers[name] = value;
    }
  }
  return { headers, kept };
}

/** A URL's origin (scheme, host and port), or undefined for what is not a URL. */
export function originOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
