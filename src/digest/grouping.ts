import { createHash } from 'node:crypto';
import type { ExceptionValue, NormalisedEvent, StackFrame } from './event-normaliser';

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

export function groupEvent(event: NormalisedEvent): GroupingResult {
  const main = mainException(event);
  const type = main?.type ?? (main ? 'Error' : MESSAGE_ISSUE_TYPE);
  const message = (main?.value ?? event.message ?? (main ? '' : '(no message)')).slice(0, MAX_MESSAGE_LENGTH);
  const defaults = defaultComponents(event, main, type);
  const components = event.fingerprint
    ? event.fingerprint.flatMap((part) => (isDefaultPlaceholder(part) ? defaults : [`fp:${part}`]))
    : defaults;
  const key = createHash('sha256')
    .update(`${GROUPING_VERSION}\n${components.join('\n')}`)
    .digest('hex');
  return {
    key: `${GROUPING_VERSION}:${key}`,
    components,
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
  if (frame.module) return normaliseFileName(frame.module);
  const file = frame.filename ?? frame.abs_path ?? '';
  return normaliseFileName(basename(file));
}

function basename(path: string): string {
  const withoutQuery = path.replace(/[?#].*$/, '');
  return withoutQuery.slice(Math.max(withoutQuery.lastIndexOf('/'), withoutQuery.lastIndexOf('\\')) + 1);
}

/** Bundlers put content hashes in file names (`main.3f2a9c1b.js`); a new build must not be a new issue. */
function normaliseFileName(name: string): string {
  return name.replace(/[.-](?=[a-f]*\d)[0-9a-f]{6,}(?=\.|$)/gi, '.<hash>');
}

export function normaliseFunction(name: string | undefined): string {
  if (!name) return '?';
  return (
    name
      .replace(/\s*\[as [^\]]+\]/g, '')
      .replace(/^(async\s+|new\s+)/, '')
      .replace(/^Object\./, '')
      .replace(/<anonymous>|<anonymous function>/g, '?')
      // V8 and bundlers number anonymous or duplicated functions.
      .replace(/\$\d+\b/g, '')
      .trim() || '?'
  );
}

const MESSAGE_PATTERNS: [RegExp, string][] = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>)]+/gi, '<url>'],
  [/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '<email>'],
  [/\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{1,3}(\.\d{1,3}){3}\b/g, '<ip>'],
  [/\b\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?\b/g, '<date>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  [/-?\b\d+(\.\d+)?\b/g, '<num>'],
];

/** Replaces the variable parts of a message (ids, numbers, URLs …) so that occurrences group together. */
export function normaliseMessage(message: string): string {
  let text = message.trim();
  for (const [pattern, placeholder] of MESSAGE_PATTERNS) text = text.replace(pattern, placeholder);
  return text.replace(/\s+/g, ' ').slice(0, MAX_MESSAGE_LENGTH);
}

/** Where it happened: the innermost in-app frame (`module in function`), else the transaction. */
function culpritOf(event: NormalisedEvent, main: ExceptionValue | undefined): string {
  const frames = main?.stacktrace?.frames ?? [];
  const frame = [...frames].reverse().find((candidate) => candidate.in_app) ?? frames[frames.length - 1];
  if (frame) {
    const where = frame.module ?? frame.filename ?? frame.abs_path ?? '?';
    return `${where} in ${frame.function ?? '?'}`.slice(0, 512);
  }
  const url = typeof event.request?.url === 'string' ? event.request.url : null;
  return (event.transaction ?? url ?? '').slice(0, 512);
}
