/** Reading an event as the digest stored it, whatever the SDK put in it. */
import { display, isRecord } from '../util';

/** Sentry's context names as people write them: `os` is "OS", `browser` is "Browser". */
const CONTEXT_NAMES: Record<string, string> = { os: 'OS', gpu: 'GPU', client_os: 'Client OS', cloud_resource: 'Cloud resource', otel: 'OpenTelemetry' };
export function contextName(name: string): string {
  return CONTEXT_NAMES[name.toLowerCase()] ?? (name ? name[0].toUpperCase() + name.slice(1).replace(/_/g, ' ') : name);
}

/** The full event is whatever the digest stored: every field is optional and read defensively. */
export type Json = Record<string, unknown>;

export interface Frame {
  filename?: string;
  abs_path?: string;
  function?: string;
  module?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  pre_context?: string[];
  context_line?: string;
  post_context?: string[];
  vars?: Json;
}

export interface ExceptionValue {
  type?: string;
  value?: string;
  module?: string;
  mechanism?: { type?: string; handled?: boolean } & Json;
  stacktrace?: { frames?: Frame[] };
  /** The frames as the SDK sent them, when source maps resolved `stacktrace`. */
  raw_stacktrace?: { frames?: Frame[] };
}

export interface ProcessingError {
  type?: string;
  url?: string;
  debug_id?: string;
  detail?: string;
}

/** A list of the event, as an array or Sentry's `{ values: [...] }`; without its null entries. */
export function list<T>(value: unknown): T[] {
  if (Array.isArray(value)) return value.filter((item) => item !== null && item !== undefined) as T[];
  if (isRecord(value) && Array.isArray(value.values)) return list<T>(value.values);
  return [];
}

/** A field shown as text: a non-empty string or a number. */
export function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function eventMessage(event: Json): string | undefined {
  const message = event.message ?? event.logentry;
  if (typeof message === 'string') return message || undefined;
  if (isRecord(message)) return str(message.formatted) ?? str(message.message);
  return undefined;
}

/** Tags as pairs, from either form SDKs send: `[[key, value]]` (or `{ key, value }` objects), or an object. */
export function normaliseTags(tags: unknown): [string, string][] {
  if (Array.isArray(tags)) {
    return tags
      .map((tag): [string, string] | null => {
        if (Array.isArray(tag) && tag.length >= 2) return [display(tag[0]), display(tag[1])];
        if (isRecord(tag) && 'key' in tag) return [display(tag.key), display(tag.value)];
        return null;
      })
      .filter((tag): tag is [string, string] => tag !== null);
  }
  if (isRecord(tags)) return Object.entries(tags).map(([key, value]) => [key, display(value)]);
  return [];
}
