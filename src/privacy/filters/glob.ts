/**
 * Glob patterns for the release and error-message filters: `*` matches any run of characters
 * (none included), `?` exactly one, `\` makes the next character literal; everything else is
 * itself. Matching never backtracks: the pattern is cut at its stars into segments, the first is
 * anchored at the start, the last at the end, and each one between is placed at its leftmost
 * position after the previous one. Leftmost placement is always right when only stars separate
 * the segments, so the cost is at most the text's length times the pattern's, and patterns are
 * short (at most 200 characters).
 */

/** A segment between stars: its characters, `undefined` where the pattern had `?`. */
type Segment = readonly (string | undefined)[];

export interface CompiledGlob {
  readonly source: string;
  matches(text: string): boolean;
  /** The same, for a text the caller has already lowercased (a case-insensitive glob's set folds once). */
  matchesFolded(folded: string): boolean;
}

export class GlobSyntaxError extends Error {}

export const MAX_GLOB_LENGTH = 200;

export function compileGlob(pattern: string, options: { caseInsensitive: boolean }): CompiledGlob {
  if (pattern.length === 0) throw new GlobSyntaxError('a pattern may not be empty');
  if (pattern.length > MAX_GLOB_LENGTH) {
    throw new GlobSyntaxError(`a pattern may be at most ${MAX_GLOB_LENGTH} characters`);
  }
  const fold = options.caseInsensitive;
  const segments: (string | undefined)[][] = [[]];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') {
      if (segments[segments.length - 1].length > 0 || segments.length === 1) segments.push([]);
    } else if (c === '?') {
      segments[segments.length - 1].push(undefined);
    } else if (c === '\\') {
      if (i + 1 === pattern.length) throw new GlobSyntaxError(`"${pattern}" ends with a lone \\`);
      i++;
      segments[segments.length - 1].push(fold ? pattern[i].toLowerCase() : pattern[i]);
    } else {
      segments[segments.length - 1].push(fold ? c.toLowerCase() : c);
    }
  }
  const head: Segment = segments[0];
  // One segment: no star at all, the text must be the segment exactly.
  const starred = segments.length > 1;
  const tail: Segment = starred ? segments[segments.length - 1] : [];
  const middle = (starred ? segments.slice(1, -1) : []).map(literalOrSegment);
  const matchesFolded = (text: string): boolean => {
    if (!starred) return text.length === head.length && segmentAt(head, text, 0);
    if (text.length < head.length + tail.length || !segmentAt(head, text, 0)) return false;
    const tailStart = text.length - tail.length;
    if (!segmentAt(tail, text, tailStart)) return false;
    let position = head.length;
    for (const segment of middle) {
      const found =
        typeof segment === 'string'
          ? text.indexOf(segment, position)
          : findSegment(segment, text, position, tailStart);
      const length = segment.length;
      if (found === -1 || found + length > tailStart) return false;
      position = found + length;
    }
    return true;
  };
  return {
    source: pattern,
    matchesFolded,
    matches: (raw: string) => matchesFolded(fold ? raw.toLowerCase() : raw),
  };
}

/** A segment without `?` is searched for with indexOf (no regular expression, linear in practice). */
function literalOrSegment(segment: Segment): Segment | string {
  return segment.includes(undefined) ? segment : segment.join('');
}

function segmentAt(segment: Segment, text: string, at: number): boolean {
  for (let i = 0; i < segment.length; i++) {
    const expected = segment[i];
    if (expected !== undefined && text[at + i] !== expected) return false;
  }
  return true;
}

/** The leftmost place at or after `from` where the segment fits wholly before `end`; -1 if none. */
function findSegment(segment: Segment, text: string, from: number, end: number): number {
  for (let at = from; at + segment.length <= end; at++) {
    if (segmentAt(segment, text, at)) return at;
  }
  return -1;
}
