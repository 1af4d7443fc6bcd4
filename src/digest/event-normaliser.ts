/**
 * Turns an SDK event payload (any of the shapes SDKs have used over the years) into the one shape
 * the tracker stores and serves as the full event. Pure: no I/O, unit-tested beside this file.
 */

import { withUserAgentContexts } from './user-agent';
import { canonicalDebugId } from '../artifacts/debug-id';
import { clean, clip, truncate } from '../common/storable-text';

import type {
  Breadcrumb,
  ExceptionValue,
  NormalisedEvent,
  SourceMapImage,
  StackFrame,
} from '../events/normalised-event';

export class InvalidEventError extends Error {}

export const LIMITS = {
  string: 16 * 1024,
  message: 8 * 1024,
  frames: 250,
  exceptions: 25,
  breadcrumbs: 100,
  tags: 200,
  depth: 8,
  arrayItems: 200,
  objectKeys: 200,
};

export const LEVELS = ['debug', 'info', 'warning', 'error', 'fatal'] as const;
const LEVEL_ALIASES: Record<string, string> = { warn: 'warning', critical: 'fatal', log: 'info' };

/** Events stamped in the future by a skewed client clock would sort above everything else. */
const MAX_CLOCK_SKEW_MS = 60_000;

export function parseEventPayload(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidEventError('event payload is not valid JSON');
  }
  if (!isRecord(parsed)) throw new InvalidEventError('event payload is not a JSON object');
  return parsed;
}

export interface NormaliseContext {
  eventId: string;
  receivedAt: number;
  sdk?: { name?: string; version?: string };
}

/**
 * Never throws anything but InvalidEventError. Normalising is pure: whatever else it threw, it would
 * throw again on every retry of the job, so it is reported as what it is, an event that cannot be
 * stored.
 */
export function normaliseEvent(raw: Record<string, unknown>, context: NormaliseContext): NormalisedEvent {
  try {
    return normalise(raw, context);
  } catch (error) {
    if (error instanceof InvalidEventError) throw error;
    throw new InvalidEventError(`event cannot be normalised: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
}

function normalise(raw: Record<string, unknown>, context: NormaliseContext): NormalisedEvent {
  const request = isRecord(raw.request) ? (clamp(raw.request) as Record<string, unknown>) : null;
  const contexts = isRecord(raw.contexts) ? (clamp(raw.contexts) as Record<string, unknown>) : {};
  return {
    event_id: context.eventId,
    timestamp: normaliseTimestamp(raw.timestamp, context.receivedAt),
    level: normaliseLevel(raw.level),
    platform: str(raw.platform, 64),
    logger: str(raw.logger, 256),
    server_name: str(raw.server_name, 256),
    release: str(raw.release, 256),
    dist: str(raw.dist, 64),
    environment: str(raw.environment, 256),
    transaction: str(raw.transaction, 1024) ?? str(raw.culprit, 1024),
    message: normaliseMessage(raw.logentry) ?? normaliseMessage(raw.message),
    exception: normaliseExceptions(raw.exception, raw.stacktrace),
    breadcrumbs: { values: normaliseBreadcrumbs(raw.breadcrumbs) },
    tags: normaliseTags(raw.tags),
    contexts: withUserAgentContexts(contexts, request),
    request,
    user: normaliseUser(raw.user),
    sdk: normaliseSdk(raw.sdk, context.sdk),
    extra: isRecord(raw.extra) ? (clamp(raw.extra) as Record<string, unknown>) : {},
    fingerprint: normaliseFingerprint(raw.fingerprint),
    ...normaliseDebugMeta(raw.debug_meta),
  };
}

/** The source map images of `debug_meta` (others, such as native images, are dropped). */
function normaliseDebugMeta(value: unknown): { debug_meta?: { images: SourceMapImage[] } } {
  if (!isRecord(value) || !Array.isArray(value.images)) return {};
  const images: SourceMapImage[] = [];
  for (const image of value.images.slice(0, LIMITS.arrayItems)) {
    if (!isRecord(image) || image.type !== 'sourcemap') continue;
    const codeFile = str(image.code_file, 1024);
    const debugId = canonicalDebugId(image.debug_id);
    if (codeFile && debugId) images.push({ type: 'sourcemap', code_file: codeFile, debug_id: debugId });
  }
  return images.length > 0 ? { debug_meta: { images } } : {};
}

/** The longest timestamp string worth parsing: RFC 3339 with nanoseconds and an offset is 35 characters. */
const MAX_TIMESTAMP_LENGTH = 64;

/** SDKs send seconds since the epoch (float) or RFC 3339 strings. */
export function normaliseTimestamp(value: unknown, receivedAt: number): string {
  let ms: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value)) {
    ms = value > 1e11 ? value : value * 1000;
  } else if (typeof value === 'string' && value.length <= MAX_TIMESTAMP_LENGTH && value.trim() !== '') {
    const numeric = Number(value);
    if (Number.isFinite(numeric)) ms = numeric * 1000;
    else {
      const hasZone = /([zZ]|[+-]\d\d:?\d\d)$/.test(value.trim());
      ms = Date.parse(hasZone ? value : `${value}Z`);
    }
  }
  if (ms !== undefined) ms = Math.floor(ms);
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0 || ms > receivedAt + MAX_CLOCK_SKEW_MS) {
    ms = receivedAt;
  }
  return new Date(ms).toISOString();
}

function normaliseLevel(value: unknown): string {
  // No level name is longer than `critical`.
  if (typeof value !== 'string' || value.length > 16) return 'error';
  const lower = value.toLowerCase();
  const level = (Object.hasOwn(LEVEL_ALIASES, lower) ? LEVEL_ALIASES[lower] : undefined) ?? lower;
  return (LEVELS as readonly string[]).includes(level) ? level : 'error';
}

function normaliseMessage(value: unknown): string | null {
  if (typeof value === 'string') return str(value, LIMITS.message);
  if (!isRecord(value)) return null;
  const formatted = str(value.formatted, LIMITS.message);
  if (formatted) return formatted;
  const template = str(value.message, LIMITS.message);
  if (!template) return null;
  return format(template, Array.isArray(value.params) ? value.params : []);
}

/**
 * printf-style templates (Python, PHP SDKs): substitutes positional parameters. Parameters are SDK
 * data like any other (cleaned, shown without String()'s failure modes), and the result is held to
 * the message limit while it is built: 4,000 `%s` of long parameters must not make megabytes.
 */
function format(template: string, params: unknown[]): string {
  let result = '';
  let copied = 0;
  let index = 0;
  for (const match of template.matchAll(/%[sdifr]/g)) {
    if (result.length > LIMITS.message) break;
    const param =
      index < params.length ? cut(display(params[index++], LIMITS.message), LIMITS.message) : match[0];
    result += template.slice(copied, match.index) + param;
    copied = match.index + match[0].length;
  }
  if (result.length <= LIMITS.message) result += template.slice(copied);
  return truncate(result, LIMITS.message);
}

function normaliseExceptions(
  value: unknown,
  topLevelStacktrace: unknown,
): { values: ExceptionValue[] } | null {
  const list = Array.isArray(value)
    ? value
    : isRecord(value) && Array.isArray(value.values)
      ? value.values
      : [];
  const values = list
    .filter(isRecord)
    .slice(-LIMITS.exceptions)
    .map((entry): ExceptionValue => {
      const exception: ExceptionValue = {
        type: str(entry.type, 256),
        value: str(entry.value, LIMITS.message),
      };
      const module = str(entry.module, 256);
      if (module) exception.module = module;
      if (isRecord(entry.mechanism)) exception.mechanism = clamp(entry.mechanism) as Record<string, unknown>;
      const stacktrace = normaliseStacktrace(entry.stacktrace);
      if (stacktrace) exception.stacktrace = stacktrace;
      return exception;
    })
    .filter((exception) => exception.type !== null || exception.value !== null || exception.stacktrace);
  if (values.length === 0) {
    // A message event with attachStacktrace carries its frames at the top level.
    const stacktrace = normaliseStacktrace(topLevelStacktrace);
    return stacktrace ? { values: [{ type: null, value: null, stacktrace }] } : null;
  }
  return { values };
}

function normaliseStacktrace(value: unknown): { frames: StackFrame[] } | undefined {
  if (!isRecord(value) || !Array.isArray(value.frames)) return undefined;
  let raw = value.frames.filter(isRecord);
  if (raw.length > LIMITS.frames) {
    // Keep both ends: the entry point and the crashing frames are what people read.
    const half = LIMITS.frames / 2;
    raw = [...raw.slice(0, half), ...raw.slice(-half)];
  }
  const frames = raw.map(normaliseFrame);
  return frames.length > 0 ? { frames } : undefined;
}

function normaliseFrame(raw: Record<string, unknown>): StackFrame {
  const frame: StackFrame = {};
  const filename = str(raw.filename, 1024);
  const absPath = str(raw.abs_path, 1024);
  const fn = str(raw.function, 512);
  const module = str(raw.module, 512);
  if (filename ?? absPath) frame.filename = (filename ?? absPath) as string;
  if (absPath) frame.abs_path = absPath;
  if (fn) frame.function = fn;
  if (module) frame.module = module;
  const lineno = int(raw.lineno);
  const colno = int(raw.colno);
  if (lineno !== undefined) frame.lineno = lineno;
  if (colno !== undefined) frame.colno = colno;
  if (typeof raw.in_app === 'boolean') frame.in_app = raw.in_app;
  const pre = strings(raw.pre_context);
  const post = strings(raw.post_context);
  if (pre) frame.pre_context = pre;
  const contextLine = str(raw.context_line, 1024);
  if (contextLine !== null) frame.context_line = contextLine;
  if (post) frame.post_context = post;
  if (isRecord(raw.vars)) frame.vars = clamp(raw.vars, 3) as Record<string, unknown>;
  return frame;
}

function normaliseBreadcrumbs(value: unknown): Breadcrumb[] {
  const list = Array.isArray(value)
    ? value
    : isRecord(value) && Array.isArray(value.values)
      ? value.values
      : [];
  return list
    .filter(isRecord)
    .slice(-LIMITS.breadcrumbs)
    .map((raw) => {
      const crumb: Breadcrumb = {
        timestamp: raw.timestamp === undefined ? null : normaliseTimestamp(raw.timestamp, Date.now()),
      };
      for (const key of ['type', 'category', 'message'] as const) {
        const text = str(raw[key], key === 'message' ? LIMITS.message : 256);
        if (text !== null) crumb[key] = text;
      }
      if (typeof raw.level === 'string') crumb.level = normaliseLevel(raw.level);
      if (isRecord(raw.data)) crumb.data = clamp(raw.data, 4) as Record<string, unknown>;
      return crumb;
    });
}

/** Tags arrive as an object or as `[key, value]` pairs; values are always shown as strings. */
function normaliseTags(value: unknown): Record<string, string> {
  const entries: [unknown, unknown][] = Array.isArray(value)
    ? value
        .map((pair): [unknown, unknown] | undefined =>
          Array.isArray(pair) && pair.length === 2
            ? [pair[0], pair[1]]
            : isRecord(pair)
              ? [pair.key, pair.value]
              : undefined,
        )
        .filter((pair): pair is [unknown, unknown] => pair !== undefined)
    : isRecord(value)
      ? Object.entries(value)
      : [];
  const tags: Record<string, string> = {};
  for (const [key, tagValue] of entries.slice(0, LIMITS.tags)) {
    if (typeof key !== 'string' || key === '' || tagValue === null || tagValue === undefined) continue;
    // Clamped first: JSON.stringify recurses, and SDK data may be nested deeper than the stack.
    const text = typeof tagValue === 'string' ? tagValue : (JSON.stringify(clamp(tagValue)) ?? '');
    setOwn(tags, cut(key, 200), cut(text, 200));
  }
  return tags;
}

function normaliseUser(value: unknown): NormalisedEvent['user'] {
  if (!isRecord(value)) return null;
  const user = clamp(value, 3) as Record<string, unknown>;
  for (const key of ['id', 'email', 'username', 'ip_address']) {
    const field = Object.hasOwn(user, key) ? user[key] : undefined;
    if (field === null || field === undefined) delete user[key];
    else if (typeof field !== 'string') user[key] = truncate(display(field, LIMITS.string), LIMITS.string);
  }
  return Object.keys(user).length > 0 ? user : null;
}

function normaliseSdk(
  value: unknown,
  fallback?: { name?: string; version?: string },
): NormalisedEvent['sdk'] {
  const sdk = isRecord(value) ? value : fallback;
  if (!sdk) return null;
  const result: Record<string, unknown> = {};
  const name = str(sdk.name, 128);
  const version = str(sdk.version, 64);
  if (name) result.name = name;
  if (version) result.version = version;
  if (Array.isArray((sdk as Record<string, unknown>).integrations)) {
    result.integrations = strings((sdk as Record<string, unknown>).integrations);
  }
  return Object.keys(result).length > 0 ? result : null;
}

function normaliseFingerprint(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const parts = value
    .filter((part) => part !== null && part !== undefined)
    .slice(0, 32)
    .map((part) => cut(display(part, 512), 512));
  return parts.length > 0 ? parts : null;
}

// --- helpers ---------------------------------------------------------------

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown, max: number): string | null {
  if (typeof value === 'string') return truncate(value, max);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** Like truncate, without the ellipsis: for keys and tags, whose values are compared. */
function cut(text: string, max: number): string {
  return clean(clip(text, max));
}

function int(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  // `+ 0` turns -0 into 0.
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n < 2 ** 31 ? n + 0 : undefined;
}

function strings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.slice(0, LIMITS.arrayItems).map((item) => truncate(display(item, 1024), 1024));
}

/**
 * What `String(value)` shows for JSON data, without its failure modes: an object whose own
 * `toString` or `valueOf` is data makes String() throw, and nested arrays make it recurse as deep as
 * they go. Stops once `max` characters are reached; the caller cuts there.
 */
function display(value: unknown, max: number): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return joined(value, max, LIMITS.depth);
  if (isRecord(value)) return '[object Object]';
  return String(value);
}

/** Array.prototype.join(',') as String() applies it to nested arrays (null and undefined show as ''). */
function joined(list: unknown[], max: number, depth: number): string {
  if (depth <= 0) return '…';
  let result = '';
  for (let i = 0; i < list.length && result.length <= max; i++) {
    if (i > 0) result += ',';
    const item = list[i];
    if (item === null || item === undefined) continue;
    result += Array.isArray(item) ? joined(item, max - result.length, depth - 1) : display(item, max);
  }
  return result;
}

/** `target[key] = value`, also for the key `__proto__`, which would otherwise replace the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}

/** Bounded deep copy: long strings cut, deep nesting replaced, NULs removed. */
function clamp(value: unknown, depth = LIMITS.depth): unknown {
  if (typeof value === 'string') return truncate(value, LIMITS.string);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value === null || typeof value === 'boolean') return value;
  if (depth <= 0) return '[depth limit]';
  if (Array.isArray(value)) return value.slice(0, LIMITS.arrayItems).map((item) => clamp(item, depth - 1));
  if (isRecord(value)) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value).slice(0, LIMITS.objectKeys)) {
      if (item !== undefined) setOwn(result, cut(key, 256), clamp(item, depth - 1));
    }
    return result;
  }
  return null;
}
