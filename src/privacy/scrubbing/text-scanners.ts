/**
 * Finds secrets inside free text: card numbers, IBANs, PEM private keys, bearer tokens, passwords in
 * URLs, IP addresses, and `key=value` or `"key": "value"` pairs whose key is sensitive. Every scanner
 * walks the text forward a bounded number of times, without regular expressions, so that its cost
 * stays linear in the text whatever an SDK (or an attacker) puts in it (see text-scanners.spec.ts).
 */
import { isIPv6 } from 'node:net';
import { FILTERED, ScrubRule } from './scrub-rules';

export interface Finding {
  start: number;
  end: number;
  rule: ScrubRule;
}

/** Classifies a key found in text; null when its value may stay. */
export type KeyClassifier = (key: string) => ScrubRule | null;

const enum Char {
  Tab = 9,
  LineFeed = 10,
  CarriageReturn = 13,
  Space = 32,
  Quote = 34,
  Apostrophe = 39,
  Dash = 45,
  Dot = 46,
  Slash = 47,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  Equals = 61,
  At = 64,
  UpperA = 65,
  UpperZ = 90,
  LowerA = 97,
  LowerZ = 122,
}

const isDigit = (code: number): boolean => code >= Char.Zero && code <= Char.Nine;
const isUpper = (code: number): boolean => code >= Char.UpperA && code <= Char.UpperZ;
const isLetter = (code: number): boolean => isUpper(code) || (code >= Char.LowerA && code <= Char.LowerZ);
const isAlphanumeric = (code: number): boolean => isDigit(code) || isLetter(code);
const isWhitespace = (code: number): boolean =>
  code === Char.Space || code === Char.Tab || code === Char.LineFeed || code === Char.CarriageReturn;

/** Word characters for the boundaries of numbers and tokens: letters, digits and `_`. */
const isWordChar = (code: number): boolean => isAlphanumeric(code) || code === 95;

/** Characters of a key in `key=value` text: words, and the `.`, `-`, `[`, `]`, `%` of form field names. */
const isKeyChar = (code: number): boolean =>
  isWordChar(code) || code === Char.Dash || code === Char.Dot || code === 91 || code === 93 || code === 37;

// ---------------------------------------------------------------------------------------------
// Card numbers: 13 to 19 digits, in groups separated by single spaces or dashes, Luhn-checked.

export function findCardNumbers(text: string, findings: Finding[]): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    if (!isDigit(text.charCodeAt(index)) || (index > 0 && isWordChar(text.charCodeAt(index - 1)))) {
      index++;
      continue;
    }
    const start = index;
    const digits: number[] = [];
    let end = index;
    while (end < length) {
      const code = text.charCodeAt(end);
      if (isDigit(code)) {
        digits.push(code - Char.Zero);
        end++;
      } else if (
        (code === Char.Space || code === Char.Dash) &&
        end + 1 < length &&
        isDigit(text.charCodeAt(end + 1))
      ) {
        end++;
      } else break;
      if (digits.length > 19) break;
    }
    const bounded = end >= length || !isWordChar(text.charCodeAt(end));
    if (bounded && digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) {
      findings.push({ start, end, rule: 'credit_card' });
    }
    index = Math.max(end, index + 1);
  }
}

export function passesLuhn(digits: number[]): boolean {
  let sum = 0;
  for (let position = 0; position < digits.length; position++) {
    let digit = digits[digits.length - 1 - position];
    if (position % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

// ---------------------------------------------------------------------------------------------
// IBANs: a country code, two check digits and 11 to 30 letters or digits, written solid or in
// groups of four separated by single spaces; checked with the ISO 13616 mod-97 rule.

const IBAN_MIN = 15;
const IBAN_MAX = 34;

export function findIbans(text: string, findings: Finding[]): void {
  const length = text.length;
  for (let index = 0; index + IBAN_MIN <= length; index++) {
    if (
      !isUpper(text.charCodeAt(index)) ||
      !isUpper(text.charCodeAt(index + 1)) ||
      !isDigit(text.charCodeAt(index + 2)) ||
      !isDigit(text.charCodeAt(index + 3)) ||
      (index > 0 && isWordChar(text.charCodeAt(index - 1)))
    )
      continue;
    let compact = '';
    let end = index;
    while (end < length && compact.length <= IBAN_MAX) {
      const code = text.charCodeAt(end);
      if (isAlphanumeric(code)) {
        compact += text[end];
        end++;
      } else if (
        code === Char.Space &&
        compact.length % 4 === 0 &&
        end + 1 < length &&
        isAlphanumeric(text.charCodeAt(end + 1))
      ) {
        end++;
      } else break;
    }
    if (compact.length >= IBAN_MIN && compact.length <= IBAN_MAX && isValidIban(compact)) {
      findings.push({ start: index, end, rule: 'iban' });
      index = end - 1;
    }
  }
}

export function isValidIban(compact: string): boolean {
  const upper = compact.toUpperCase();
  const rearranged = upper.slice(4) + upper.slice(0, 4);
  let remainder = 0;
  for (let index = 0; index < rearranged.length; index++) {
    const code = rearranged.charCodeAt(index);
    const value = isDigit(code) ? code - Char.Zero : isUpper(code) ? code - Char.UpperA + 10 : -1;
    if (value < 0) return false;
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

// ---------------------------------------------------------------------------------------------
// PEM private keys: the body between `-----BEGIN … PRIVATE KEY-----` and its `-----END` line.

export function findPemKeys(text: string, findings: Finding[]): void {
  let from = 0;
  for (;;) {
    const begin = text.indexOf('-----BEGIN ', from);
    if (begin < 0) return;
    const headerEnd = text.indexOf('-----', begin + 11);
    if (headerEnd < 0) return;
    const label = text.slice(begin + 11, headerEnd);
    const bodyStart = headerEnd + 5;
    if (!label.endsWith('PRIVATE KEY') || label.length > 64) {
      from = bodyStart;
      continue;
    }
    const footer = text.indexOf('-----END', bodyStart);
    const bodyEnd = footer < 0 ? text.length : footer;
    if (bodyEnd > bodyStart) findings.push({ start: bodyStart, end: bodyEnd, rule: 'pem_key' });
    if (footer < 0) return;
    from = footer + 8;
  }
}

// ---------------------------------------------------------------------------------------------
// Bearer tokens: the token after the word `Bearer` (any case) and whitespace.

export function findBearerTokens(text: string, findings: Finding[]): void {
  let from = 0;
  for (;;) {
    const found = indexOfIgnoringCase(text, 'bearer', from);
    if (found < 0) return;
    from = found + 6;
    if (found > 0 && isWordChar(text.charCodeAt(found - 1))) continue;
    let tokenStart = from;
    while (tokenStart < text.length && isWhitespace(text.charCodeAt(tokenStart))) tokenStart++;
    if (tokenStart === from) continue;
    let tokenEnd = tokenStart;
    while (
      tokenEnd < text.length &&
      !isWhitespace(text.charCodeAt(tokenEnd)) &&
      !isQuote(text.charCodeAt(tokenEnd))
    )
      tokenEnd++;
    if (tokenEnd > tokenStart) findings.push({ start: tokenStart, end: tokenEnd, rule: 'bearer_token' });
    from = tokenEnd;
  }
}

const isQuote = (code: number): boolean => code === Char.Quote || code === Char.Apostrophe;

/** `indexOf` for an all-lowercase ASCII needle, matching either case in the text. */
function indexOfIgnoringCase(text: string, needle: string, from: number): number {
  const first = needle.charCodeAt(0);
  for (let index = from; index + needle.length <= text.length; index++) {
    if ((text.charCodeAt(index) | 0x20) !== first) continue;
    let matched = 1;
    while (
      matched < needle.length &&
      (text.charCodeAt(index + matched) | 0x20) === needle.charCodeAt(matched)
    )
      matched++;
    if (matched === needle.length) return index;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Passwords in URLs: `scheme://user:password@host` keeps the user and loses the password.

/** RFC 3986 userinfo characters (unreserved, percent-encoded, sub-delims and `:`). */
const isUserinfoChar = (code: number): boolean =>
  isAlphanumeric(code) ||
  code === 37 || // %
  code === Char.Dash ||
  code === Char.Dot ||
  code === 95 || // _
  code === 126 || // ~
  code === 33 || // !
  code === 36 || // $
  code === 38 || // &
  code === Char.Apostrophe ||
  code === 40 || // (
  code === 41 || // )
  code === 42 || // *
  code === 43 || // +
  code === 44 || // ,
  code === 59 || // ;
  code === Char.Equals ||
  code === Char.Colon;

export function findUrlPasswords(text: string, findings: Finding[]): void {
  let from = 0;
  for (;;) {
    const separator = text.indexOf('://', from);
    if (separator < 0) return;
    const userStart = separator + 3;
    let end = userStart;
    let colon = -1;
    while (end < text.length && isUserinfoChar(text.charCodeAt(end))) {
      if (colon < 0 && text.charCodeAt(end) === Char.Colon) colon = end;
      end++;
    }
    if (end < text.length && text.charCodeAt(end) === Char.At && colon >= 0 && end > colon + 1) {
      findings.push({ start: colon + 1, end, rule: 'url_password' });
    }
    from = Math.max(end, userStart);
  }
}

// ---------------------------------------------------------------------------------------------
// IP addresses (only when a project asks for them to be scrubbed).

export function findIpAddresses(text: string, findings: Finding[]): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    const hex =
      isDigit(code) || ((code | 0x20) >= Char.LowerA && (code | 0x20) <= 102) || code === Char.Colon;
    if (!hex || (index > 0 && isWordChar(text.charCodeAt(index - 1)))) {
      index++;
      continue;
    }
    let end = index;
    let colons = 0;
    let dots = 0;
    while (end < length) {
      const next = text.charCodeAt(end);
      const lower = next | 0x20;
      if (isDigit(next) || (lower >= Char.LowerA && lower <= 102)) end++;
      else if (next === Char.Colon) {
        colons++;
        end++;
      } else if (next === Char.Dot) {
        dots++;
        end++;
      } else break;
    }
    // A trailing dot ends a sentence, not an address.
    let candidateEnd = end;
    while (candidateEnd > index && text.charCodeAt(candidateEnd - 1) === Char.Dot) candidateEnd--;
    const bounded = end >= length || !isWordChar(text.charCodeAt(end));
    dots -= end - candidateEnd;
    if (bounded && candidateEnd - index <= 45) {
      const candidate = text.slice(index, candidateEnd);
      if ((dots === 3 && colons === 0 && isIPv4(candidate)) || (colons >= 2 && isIPv6(candidate)))
        findings.push({ start: index, end: candidateEnd, rule: 'ip_address' });
    }
    index = Math.max(end, index + 1);
  }
}

function isIPv4(candidate: string): boolean {
  const parts = candidate.split('.');
  return (
    parts.length === 4 &&
    parts.every((part) => part.length > 0 && part.length <= 3 && /^\d+$/.test(part) && Number(part) <= 255)
  );
}

// ---------------------------------------------------------------------------------------------
// `key=value`, `key: value` and `"key": "value"` pairs in text whose key is sensitive: query
// strings, form bodies, log lines, JSON that did not parse.

export function findSensitivePairs(text: string, classify: KeyClassifier, findings: Finding[]): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    if (!isKeyChar(text.charCodeAt(index))) {
      index++;
      continue;
    }
    const keyStart = index;
    while (index < length && isKeyChar(text.charCodeAt(index))) index++;
    const keyEnd = index;
    let cursor = keyEnd;
    if (cursor < length && isQuote(text.charCodeAt(cursor))) cursor++;
    while (cursor < length && text.charCodeAt(cursor) === Char.Space) cursor++;
    const separator = cursor < length ? text.charCodeAt(cursor) : -1;
    if (separator !== Char.Equals && separator !== Char.Colon) continue;
    // `https://` and `C:\` are not pairs.
    if (
      separator === Char.Colon &&
      cursor + 1 < length &&
      (text.charCodeAt(cursor + 1) === Char.Slash || text.charCodeAt(cursor + 1) === 92)
    )
      continue;
    const rule = classify(text.slice(keyStart, keyEnd));
    if (rule === null) continue;
    cursor++;
    while (
      cursor < length &&
      (text.charCodeAt(cursor) === Char.Space || text.charCodeAt(cursor) === Char.Tab)
    )
      cursor++;
    const value = readValue(text, cursor, rule === 'authorization_header' || rule === 'cookie_header');
    if (value.end > value.start) findings.push({ start: value.start, end: value.end, rule });
    index = Math.max(value.end, keyEnd);
  }
}

/**
 * A quoted value runs to its closing quote; a bare one to the next separator. Header-like keys
 * (`Authorization: Basic …`, `Cookie: a=1; b=2`) keep their value to the end of the line.
 */
function readValue(text: string, start: number, toEndOfLine: boolean): { start: number; end: number } {
  const length = text.length;
  if (text.startsWith(FILTERED, start)) return { start, end: start + FILTERED.length };
  if (start < length && isQuote(text.charCodeAt(start))) {
    const quote = text.charCodeAt(start);
    let end = start + 1;
    while (end < length && text.charCodeAt(end) !== quote) end += text.charCodeAt(end) === 92 ? 2 : 1;
    return { start: start + 1, end: Math.min(end, length) };
  }
  let end = start;
  while (end < length) {
    const code = text.charCodeAt(end);
    if (code === Char.LineFeed || code === Char.CarriageReturn) break;
    if (
      !toEndOfLine &&
      (isWhitespace(code) ||
        code === 38 ||
        code === 59 ||
        code === 44 ||
        isQuote(code) ||
        code === 125 ||
        code === 93)
    )
      break;
    end++;
  }
  return { start, end };
}
