import { createHash } from 'node:crypto';
import { storableText } from '../common/storable-text';
import { InvalidEventError, LIMITS } from './event-normaliser';
import type { ExceptionValue, NormalisedEvent, StackFrame } from '../events/normalised-event';

/**
 * Bump when the rules below change in a way that would move events to other issues: the version is
 * part of the hash, so old and new keys never collide.
 */
export const GROUPING_VERSION = 'g1';

export interface GroupingResult {
  key: string;
  /** The components that were hashed, kept for debugging ("why are these grouped together?"). */
  components: string[];
  type: string;
  message: string;
  title: string;
  culprit: string;
}

const MESSAGE_ISSUE_TYPE = 'Message';
const MAX_MESSAGE_LENGTH = 1000;
const MAX_CULPRIT_LENGTH = 512;
/** Module, file and function names are read up to this length; the normaliser clamps them shorter. */
const MAX_NAME_LENGTH = 1024;
/**
 * The components kept with the event (all of them are hashed). Frames and the type make at most
 * 251; only a fingerprint repeating `{{ default }}` goes past this, and would repeat the stack.
 */
export const MAX_STORED_COMPONENTS = 300;

/**
 * Never throws anything but InvalidEventError: grouping is pure, so any other failure would repeat on
 * every retry of the job.
 */
export function groupEvent(event: NormalisedEvent): GroupingResult {
  try {
    return group(event);
  } catch (error) {
    if (error instanceof InvalidEventError) throw error;
    throw new InvalidEventError(`event cannot be grouped: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
}

function group(event: NormalisedEvent): GroupingResult {
  const main = mainException(event);
  const type = main?.type ?? (main ? 'Error' : MESSAGE_ISSUE_TYPE);
  const message = clip(main?.value ?? event.message ?? (main ? '' : '(no message)'), MAX_MESSAGE_LENGTH);
  const defaults = defaultComponents(event, main, type);
  const components = event.fingerprint
    ? event.fingerprint.flatMap((part) => (isDefaultPlaceholder(part) ? defaults : [`fp:${part}`]))
    : defaults;
  const key = createHash('sha256')
    .update(`${GROUPING_VERSION}\n${components.join('\n')}`)
    .digest('hex');
  return {
    key: `${GROUPING_VERSION}:${key}`,
    components: components.slice(0, MAX_STORED_COMPONENTS),
    type,
    message,
    title: main ? (message ? `${type}: ${message}` : type) : message,
    culprit: culpritOf(event, main),
  };
}

function isDefaultPlaceholder(part: string): boolean {
  return /^\{\{\s*default\s*\}\}$/.test(part);
}

/** Sentry lists chained exceptions cause-first: the last one is what was finally thrown. */
function mainException(event: NormalisedEvent): ExceptionValue | undefined {
  const values = event.exception?.values ?? [];
  return values[values.length - 1];
}

function defaultComponents(event: NormalisedEvent, main: ExceptionValue | undefined, type: string): string[] {
  const frames = groupingFrames(main?.stacktrace?.frames ?? []);
  if (frames.length > 0) return [`type:${type}`, ...frames.map(frameComponent)];
  const text = main ? (main.value ?? '') : (event.message ?? '');
  return [`type:${type}`, `message:${normaliseMessage(text)}`];
}

/**
 * In-app frames identify the code path; when an SDK marks none (or cannot tell), every frame that
 * names a function or file is used instead, so a library crash still groups by its stack.
 */
function groupingFrames(frames: StackFrame[]): StackFrame[] {
  const inApp = frames.filter((frame) => frame.in_app === true);
  if (inApp.length > 0) return inApp;
  return frames.filter((frame) => frame.function || frame.module || frame.filename);
}

/** Never line or column numbers: editing the file above the failing line must not split the issue. */
function frameComponent(frame: StackFrame): string {
  return `frame:${frameLocation(frame)}:${normaliseFunction(frame.function)}`;
}

function frameLocation(frame: StackFrame): string {
  if (frame.module) return normaliseFileName(clip(frame.module, MAX_NAME_LENGTH));
  const file = clip(frame.filename ?? frame.abs_path ?? '', MAX_NAME_LENGTH);
  return normaliseFileName(basename(file));
}

function basename(path: string): string {
  const withoutQuery = path.slice(0, queryStart(path));
  return withoutQuery.slice(Math.max(withoutQuery.lastIndexOf('/'), withoutQuery.lastIndexOf('\\')) + 1);
}

/**
 * Where a `?query` or `#fragment` begins: the first `?` or `#` of the last line (a file name has one
 * line; grouping keys have always been computed this way). Scanned by hand because the obvious
 * pattern, `/[?#].*$/`, backtracks quadratically over a run of `?` followed by a newline.
 */
function queryStart(path: string): number {
  let lineStart = 0;
  for (let i = path.length - 1; i >= 0; i--) {
    if (isLineTerminator(path.charCodeAt(i))) {
      lineStart = i + 1;
      break;
    }
  }
  for (let i = lineStart; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x3f || c === 0x23) return i;
  }
  return path.length;
}

/**
 * Bundlers put content hashes in file names (`main.3f2a9c1b.js`); a new build must not be a new issue.
 * Linear: from each `.` or `-` the pattern scans only the run of hex digits after it, and those runs
 * never overlap.
 */
function normaliseFileName(name: string): string {
  return name.replace(/[.-](?=[a-f]*\d)[0-9a-f]{6,}(?=\.|$)/gi, '.<hash>');
}

export function normaliseFunction(name: string | undefined): string {
  if (!name) return '?';
  return (
    withoutAliases(clip(name, MAX_NAME_LENGTH))
      .replace(/^(async\s+|new\s+)/, '')
      .replace(/^Object\./, '')
      .replace(/<anonymous>|<anonymous function>/g, '?')
      // V8 and bundlers number anonymous or duplicated functions.
      .replace(/\$\d+\b/g, '')
      .trim() || '?'
  );
}

/**
 * Applied in this order. Messages are user data, so each step must run in linear time: URLs and
 * e-mail addresses are found by scanning (their natural patterns backtrack quadratically over long
 * runs of word characters); the remaining patterns only ever scan a bounded distance, or a run that
 * the next attempt cannot scan again, from each starting point.
 */
const MESSAGE_REPLACEMENTS: ((text: string) => string)[] = [
  (text) => replaceUrls(text, '<url>'),
  (text) => replaceEmails(text, '<email>'),
  (text) => text.replace(/\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b/gi, '<uuid>'),
  (text) => text.replace(/\b\d{1,3}(\.\d{1,3}){3}\b/g, '<ip>'),
  (text) => text.replace(/\b\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?\b/g, '<date>'),
  (text) => text.replace(/\b0x[0-9a-f]+\b/gi, '<hex>'),
  (text) => text.replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'),
  (text) => text.replace(/-?\b\d+(\.\d+)?\b/g, '<num>'),
];

/** Replaces the variable parts of a message (ids, numbers, URLs …) so that occurrences group together. */
export function normaliseMessage(message: string): string {
  let text = clip(message, LIMITS.message).trim();
  for (const replace of MESSAGE_REPLACEMENTS) text = replace(text);
  return clip(text.replace(/\s+/g, ' '), MAX_MESSAGE_LENGTH);
}

/**
 * Replaces what `/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>)]+/gi` matches: a scheme that starts with a letter
 * at a word boundary, `://`, and at least one character of the rest.
 */
function replaceUrls(text: string, placeholder: string): string {
  let result = '';
  let copied = 0;
  for (
    let separator = text.indexOf('://');
    separator !== -1;
    separator = text.indexOf('://', Math.max(separator + 1, copied))
  ) {
    let schemeStart = separator;
    while (schemeStart > copied && isSchemeChar(text.charCodeAt(schemeStart - 1))) schemeStart--;
    while (
      schemeStart < separator &&
      !(isLetter(text.charCodeAt(schemeStart)) && !isWordChar(text.charCodeAt(schemeStart - 1)))
    ) {
      schemeStart++;
    }
    URL_REST.lastIndex = separator + 3;
    if (schemeStart === separator || !URL_REST.test(text)) continue;
    result += `${text.slice(copied, schemeStart)}${placeholder}`;
    copied = URL_REST.lastIndex;
  }
  return copied === 0 ? text : result + text.slice(copied);
}

/** Sticky and a single character class: it matches the longest run at one position, without backtracking. */
const URL_REST = /[^\s'"<>)]+/y;

/** Replaces what `/[\w.+-]+@[\w-]+(\.[\w-]+)+/g` matches: a local part, `@`, and a dotted domain. */
function replaceEmails(text: string, placeholder: string): string {
  let result = '';
  let copied = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', Math.max(at + 1, copied))) {
    let localStart = at;
    while (localStart > copied && isLocalPartChar(text.charCodeAt(localStart - 1))) localStart--;
    if (localStart === at) continue;
    const end = dottedDomainEnd(text, at + 1);
    if (end === -1) continue;
    result += `${text.slice(copied, localStart)}${placeholder}`;
    copied = end;
  }
  return copied === 0 ? text : result + text.slice(copied);
}

/** The end of the longest `[\w-]+(\.[\w-]+)+` at `start`, or -1. */
function dottedDomainEnd(text: string, start: number): number {
  let position = skipDomainLabel(text, start);
  if (position === start) return -1;
  let end = -1;
  while (text.charCodeAt(position) === 0x2e) {
    const labelEnd = skipDomainLabel(text, position + 1);
    if (labelEnd === position + 1) break;
    end = position = labelEnd;
  }
  return end;
}

function skipDomainLabel(text: string, start: number): number {
  let position = start;
  while (position < text.length && isDomainChar(text.charCodeAt(position))) position++;
  return position;
}

/**
 * Removes what `/\s*\[as [^\]]+\]/g` matches (V8's `[as alias]` suffix, with the spaces before it),
 * without rescanning a run of spaces or an unclosed `[as ` from every position.
 */
function withoutAliases(name: string): string {
  let result = '';
  let copied = 0;
  for (
    let open = name.indexOf('[as ');
    open !== -1;
    open = name.indexOf('[as ', Math.max(open + 1, copied))
  ) {
    const close = name.indexOf(']', open + 4);
    if (close === -1) break;
    if (close === open + 4) continue;
    let start = open;
    while (start > copied && isRegExpSpace(name.charCodeAt(start - 1))) start--;
    result += name.slice(copied, start);
    copied = close + 1;
  }
  return copied === 0 ? name : result + name.slice(copied);
}

/** `\s` of JavaScript regular expressions. */
function isRegExpSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isLineTerminator(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `\w`: ASCII letters, digits and `_`. */
function isWordChar(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === 0x5f;
}

/** `[a-z0-9+.-]` case-insensitively. */
function isSchemeChar(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === 0x2b || c === 0x2e || c === 0x2d;
}

/** `[\w.+-]` */
function isLocalPartChar(c: number): boolean {
  return isWordChar(c) || c === 0x2e || c === 0x2b || c === 0x2d;
}

/** `[\w-]` */
function isDomainChar(c: number): boolean {
  return isWordChar(c) || c === 0x2d;
}

/**
 * Cuts without leaving half of a surrogate pair: that half is not storable. It becomes U+FFFD, which
 * is also how the hash has always seen it (Node encodes a lone surrogate as U+FFFD).
 */
function clip(text: string, max: number): string {
  return text.length > max ? storableText(text.slice(0, max)) : text;
}

/** Where it happened: the innermost in-app frame (`module in function`), else the transaction. */
function culpritOf(event: NormalisedEvent, main: ExceptionValue | undefined): string {
  const frames = main?.stacktrace?.frames ?? [];
  const frame = [...frames].reverse().find((candidate) => candidate.in_app) ?? frames[frames.length - 1];
  if (frame) {
    const where = frame.module ?? frame.filename ?? frame.abs_path ?? '?';
    return clip(`${where} in ${frame.function ?? '?'}`, MAX_CULPRIT_LENGTH);
  }
  const url = typeof event.request?.url === 'string' ? event.request.url : null;
  return clip(event.transaction ?? url ?? '', MAX_CULPRIT_LENGTH);
}
