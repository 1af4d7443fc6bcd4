/** Base64 VLQ digits and the separators between segments and lines. */
const MAPPINGS = /^[A-Za-z0-9+/,;]*$/;

/**
 * Whether bytes are a source map worth keeping: JSON with `mappings` written in VLQ (or an indexed
 * map's `sections`). Whether every position in it is sound is found out when it is used, where a
 * broken one leaves a frame as it was.
 */
export function isSourceMapJson(data: Buffer): boolean {
  let map: unknown;
  try {
    map = JSON.parse(data.toString('utf8'));
  } catch {
    return false;
  }
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return false;
  const { mappings, sections } = map as { mappings?: unknown; sections?: unknown };
  if (Array.isArray(sections)) return true;
  return typeof mappings === 'string' && MAPPINGS.test(mappings);
}
