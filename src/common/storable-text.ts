/**
 * Text as PostgreSQL can store it, for whatever comes from outside (SDK events, uploaded source
 * maps): NUL removed, lone surrogates replaced, lengths cut without splitting a surrogate pair.
 */

/**
 * What PostgreSQL can store: it refuses NUL in text and jsonb, and a lone surrogate has no UTF-8 form
 * (jsonb rejects its `\udXXX` escape), so lone surrogates become U+FFFD.
 */
export function storableText(text: string): string {
  return clean(text);
}

/** Any surrogate half, paired or not: most strings hold none (nor NUL), and are returned as they are. */
const SURROGATE = /[\ud800-\udfff]/;

export function clean(text: string): string {
  if (!text.includes('\u0000') && !SURROGATE.test(text)) return text;
  return text
    .replaceAll('\u0000', '')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/**
 * Storable text of at most `max` UTF-16 units, ending in `…` when cut. Cut before it is cleaned, so
 * that no pattern ever runs on more than `max` units of SDK data.
 */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${clean(clip(text, max - 1))}…` : clean(text);
}

/** Cuts to `max` UTF-16 units without separating a surrogate pair, whose halves are not storable. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
