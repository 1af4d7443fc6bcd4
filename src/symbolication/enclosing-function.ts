/** Words that look like a call followed by a block but are statements. */
const KEYWORDS = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'with',
  'return',
  'function',
  'typeof',
  'await',
]);

const DECLARATIONS: RegExp[] = [
  // function name(…) / async function* name<T>(…)
  /\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*[<(]/,
  // name = function …, name = (…) => …, name: async (a) => …, name = a => …
  /([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::\s*[^=]+?)?=>|[A-Za-z_$][\w$]*\s*=>)/,
  // class methods and object shorthand: name(…) {, async name(…): T {, get name() {
  /^\s*(?:(?:public|private|protected|static|async|get|set|override|readonly)\s+)*\*?\s*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^()]*\)\s*(?::\s*[^{]+)?\{\s*$/,
];

/** How far above the line to look for its function. */
const LOOK_BACK = 200;
/** Declarations are read from the start of a line: longer lines (minified code, data) are cut. */
const MAX_LINE = 500;

/**
 * The name of the function a line of original source is in, read from the source itself: the
 * nearest declaration above the line whose block the line is still inside (by counting braces).
 * Minified names differ from build to build, and a source map's names at a call site name what is
 * called, not the caller; this is what keeps a frame's function (and its issue) the same in every
 * build. Null when nothing is found.
 */
export function enclosingFunction(lines: readonly string[], lineIndex: number): string | null {
  const declared = (line: string): string | null => {
    const start = line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line;
    for (const pattern of DECLARATIONS) {
      const name = pattern.exec(start)?.[1];
      if (name && !KEYWORDS.has(name)) return name;
    }
    return null;
  };
  const own = declared(lines[lineIndex] ?? '');
  if (own) return own;
  // Braces closed between a line and the target that the line did not open: a block that a line
  // opens encloses the target only when its opening brace is left unmatched below.
  let unmatchedClosing = 0;
  for (let index = lineIndex - 1; index >= 0 && index >= lineIndex - LOOK_BACK; index--) {
    const line = lines[index] ?? '';
    const closes = (line.match(/\}/g) ?? []).length;
    const opens = (line.match(/\{/g) ?? []).length;
    const left = unmatchedClosing + closes - opens;
    if (left >= 0) {
      unmatchedClosing = left;
      continue;
    }
    // This line opens a block around the target: a function's, or a statement's inside one.
    const name = declared(line);
    if (name) return name;
    unmatchedClosing = 0;
  }
  return null;
}
