/**
 * The event's `scrubbed` list (one path and rule per pair; a value matched by two rules is listed
 * twice, and the server's `(N more)` entry stands for N values past its limit) as the values that
 * were replaced: each path once, with its rules in order.
 */
export interface ScrubbedPair {
  path: string;
  rule: string;
}

export interface ScrubbedValues {
  /** Each listed path once, with the rules that matched its value. */
  paths: Array<{ path: string; rules: string[] }>;
  /** Values replaced past the server's limit, counted but not listed. */
  unlisted: number;
  /** Every value replaced: the listed paths and the unlisted values. */
  count: number;
}

const UNLISTED = /^\((\d+) more\)$/;

export function scrubbedValues(pairs: ScrubbedPair[]): ScrubbedValues {
  const byPath = new Map<string, string[]>();
  let unlisted = 0;
  for (const { path, rule } of pairs) {
    const more = UNLISTED.exec(path);
    if (more) {
      unlisted += Number(more[1]);
      continue;
    }
    const rules = byPath.get(path);
    if (!rules) byPath.set(path, [rule]);
    else if (!rules.includes(rule)) rules.push(rule);
  }
  const paths = [...byPath].map(([path, rules]) => ({ path, rules }));
  return { paths, unlisted, count: paths.length + unlisted };
}
