/**
 * Editing an issue search query in the browser: finding the term under the caret, replacing it,
 * and setting one key's filter (the environment and release pickers). The server parses the query;
 * this only has to split it into terms the same way (spaces outside quotes and brackets).
 */

export interface Term {
  start: number;
  end: number;
  text: string;
}

/** The query's terms with their positions. */
export function terms(query: string): Term[] {
  const found: Term[] = [];
  let index = 0;
  while (index < query.length) {
    while (index < query.length && /\s/.test(query[index])) index++;
    if (index >= query.length) break;
    const start = index;
    let quoted = false;
    let bracket = false;
    while (index < query.length) {
      const char = query[index];
      if (quoted) {
        if (char === '\\') index++;
        else if (char === '"') quoted = false;
      } else if (char === '"') quoted = true;
      else if (char === '[') bracket = true;
      else if (char === ']') bracket = false;
      else if (/\s/.test(char) && !bracket) break;
      index++;
    }
    found.push({ start, end: Math.min(index, query.length), text: query.slice(start, index) });
  }
  return found;
}

/** The term the caret is in or just after; an empty term at the caret when it is between terms. */
export function termAt(query: string, caret: number): Term {
  const hit = terms(query).find((term) => caret >= term.start && caret <= term.end);
  return hit ?? { start: caret, end: caret, text: '' };
}

/** `key` and the value typed so far of a `key:value` term (negation kept apart), or null for free text. */
export function splitTerm(text: string): { negated: boolean; key: string; value: string } | null {
  const match = /^(!?)([A-Za-z0-9_.:-]+?):(.*)$/s.exec(text);
  if (!match) return null;
  return { negated: match[1] === '!', key: match[2], value: unquote(match[3]) };
}

/** A value as the query language wants it: quoted when it has spaces, quotes, commas or brackets. */
export function quoteValue(value: string): string {
  if (value !== '' && !/[\s",[\]\\]/.test(value)) return value;
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  const body = value.endsWith('"') && value.length > 1 ? value.slice(1, -1) : value.slice(1);
  return body.replace(/\\(.)/g, '$1');
}

/** The query with `term` replaced by `replacement`; returns the new text and where the caret goes. */
export function replaceTerm(query: string, term: Term, replacement: string): { query: string; caret: number } {
  const before = query.slice(0, term.start);
  const after = query.slice(term.end);
  const glue = after.startsWith(' ') || replacement.endsWith(':') ? '' : ' ';
  const text = `${before}${replacement}${glue}${after}`;
  return { query: text, caret: before.length + replacement.length + glue.length };
}

/** The value of the first (not negated) `key:` term, or null. */
export function filterValue(query: string, key: string): string | null {
  for (const term of terms(query)) {
    const parts = splitTerm(term.text);
    if (parts && parts.key === key && !parts.negated) return parts.value;
  }
  return null;
}

/** The query without its `key:` terms (negated ones too), then with `key:value` if a value is given. */
export function setFilter(query: string, key: string, value: string | null): string {
  const kept = terms(query)
    .filter((term) => splitTerm(term.text)?.key !== key)
    .map((term) => term.text);
  if (value !== null) kept.push(`${key}:${quoteValue(value)}`);
  return kept.join(' ');
}
