/**
 * The nesting scan costs about as much as JSON.parse itself (15 µs for a typical 4 KB event), and
 * below this size the worst nesting costs V8 at most a couple of milliseconds: smaller payloads are
 * not scanned.
 */
export const NESTING_SCAN_FROM_BYTES = 16 * 1024;

/** Deepest nesting of arrays and objects in a JSON text, ignoring brackets inside strings; stops past `limit`. */
export function jsonNesting(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b /* { [ */) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d /* } ] */) {
      depth--;
    }
  }
  return deepest;
}
