/**
 * Finds credentials recognisable by their shape alone, wherever they are written (a log line, an
 * exception message, a URL): JSON Web Tokens, Stripe secret and restricted keys, AWS access key
 * ids. Like text-scanners.ts, without regular expressions: each scanner looks for its fixed prefix
 * with `indexOf` and reads forward from it a bounded number of times, so that the cost stays linear
 * in the text (see token-scanners.spec.ts).
 */
import type { Finding } from './text-scanners';

const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isUpper = (code: number): boolean => code >= 65 && code <= 90;
const isLower = (code: number): boolean => code >= 97 && code <= 122;
const isAlphanumeric = (code: number): boolean => isDigit(code) || isUpper(code) || isLower(code);
const isWordChar = (code: number): boolean => isAlphanumeric(code) || code === 95;
/** The base64url alphabet (RFC 4648 §5), which JWTs are written in. */
const isBase64UrlChar = (code: number): boolean => isWordChar(code) || code === 45;
const DOT = 46;

// ---------------------------------------------------------------------------------------------
// JSON Web Tokens: a header that is a base64url JSON object (so it starts `eyJ`, the encoding of
// `{"`), then the payload and the signature (JWS: three parts), or four more parts (JWE: five),
// separated by dots. With or without `Bearer` in front.

/** The shortest header a JWT has: `{"alg":"none"}` is 19 characters encoded. */
const MIN_JWT_HEADER = 16;

export function findJwts(text: string, findings: Finding[]): void {
  const length = text.length;
  let from = 0;
  for (;;) {
    const start = text.indexOf('eyJ', from);
    if (start < 0) return;
    // The whole run of base64url characters and dots, read once.
    const parts: number[] = [];
    let partStart = start;
    let end = start;
    while (end < length) {
      const code = text.charCodeAt(end);
      if (isBase64UrlChar(code)) end++;
      else if (code === DOT) {
        parts.push(end - partStart);
        end++;
        partStart = end;
      } else break;
    }
    parts.push(end - partStart);
    from = Math.max(end, start + 3);
    if (start > 0 && (isBase64UrlChar(text.charCodeAt(start - 1)) || text.charCodeAt(start - 1) === DOT)) continue;
    // A dot after the token ends the sentence.
    let tokenEnd = end;
    if (parts.length === 4 || parts.length === 6) {
      if (parts[parts.length - 1] !== 0) continue;
      parts.pop();
      tokenEnd--;
    }
    if (parts[0] < MIN_JWT_HEADER) continue;
    const signed = parts.length === 3 && parts[1] > 0;
    const encrypted = parts.length === 5 && parts[3] > 0;
    if (signed || encrypted) findings.push({ start, end: tokenEnd, rule: 'jwt' });
  }
}

// ---------------------------------------------------------------------------------------------
// Stripe secret (`sk_`) and restricted (`rk_`) keys, live and test: the test keys also give access
// to the account's API (test mode). Publishable keys (`pk_`) are meant to be public, and stay.

/** Stripe's keys carry at least 24 characters after the prefix; fewer is a name, not a key. */
const MIN_STRIPE_BODY = 16;

export function findStripeKeys(text: string, findings: Finding[]): void {
  for (const marker of ['k_live_', 'k_test_']) findStripeKeysOf(text, marker, findings);
}

function findStripeKeysOf(text: string, marker: string, findings: Finding[]): void {
  const length = text.length;
  let from = 0;
  for (;;) {
    const found = text.indexOf(marker, from);
    if (found < 0) return;
    const bodyStart = found + marker.length;
    from = bodyStart;
    const start = found - 1;
    if (start < 0) continue;
    const kind = text.charCodeAt(start);
    // `s` or `r`, as a word of its own.
    if (kind !== 115 && kind !== 114) continue;
    if (start > 0 && isWordChar(text.charCodeAt(start - 1))) continue;
    let end = bodyStart;
    while (end < length && isAlphanumeric(text.charCodeAt(end))) end++;
    from = end;
    if (end - bodyStart >= MIN_STRIPE_BODY) findings.push({ start, end, rule: 'stripe_key' });
  }
}

// ---------------------------------------------------------------------------------------------
// AWS access key ids: `AKIA` (a user's long-term key) or `ASIA` (temporary credentials) and 16
// more upper-case letters or digits, 20 in all, as a word of its own. The id alone is not the
// secret, but it names the key and is half of what signs a request: it is scrubbed like one.

const AWS_KEY_ID_LENGTH = 20;

export function findAwsAccessKeyIds(text: string, findings: Finding[]): void {
  for (const prefix of ['AKIA', 'ASIA']) findAwsAccessKeyIdsOf(text, prefix, findings);
}

function findAwsAccessKeyIdsOf(text: string, prefix: string, findings: Finding[]): void {
  const length = text.length;
  let from = 0;
  for (;;) {
    const start = text.indexOf(prefix, from);
    if (start < 0) return;
    const end = start + AWS_KEY_ID_LENGTH;
    // Every later match is as short of room.
    if (end > length) return;
    from = start + prefix.length;
    if (start > 0 && isWordChar(text.charCodeAt(start - 1))) continue;
    if (end < length && isWordChar(text.charCodeAt(end))) continue;
    let index = from;
    while (index < end && (isUpper(text.charCodeAt(index)) || isDigit(text.charCodeAt(index)))) index++;
    if (index < end) continue;
    findings.push({ start, end, rule: 'aws_access_key_id' });
    from = end;
  }
}
