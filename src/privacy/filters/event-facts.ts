/**
 * The few fields of an event payload the inbound filters read, taken from the object ingest has
 * already parsed. Each reader tolerates any shape: an SDK may send anything.
 */

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `request.headers` as an object or as a list of `[name, value]` pairs (both are in the protocol). */
export function userAgentOf(event: Json): string | undefined {
  const headers = object(event.request)?.headers;
  if (Array.isArray(headers)) {
    for (const pair of headers) {
      if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[0].toLowerCase() === 'user-agent') {
        return text(pair[1]);
      }
    }
    return undefined;
  }
  const named = object(headers);
  if (!named) return undefined;
  const direct = text(named['User-Agent']) ?? text(named['user-agent']);
  if (direct !== undefined) return direct;
  for (const key in named) if (key.toLowerCase() === 'user-agent') return text(named[key]);
  return undefined;
}

export function exceptionsOf(event: Json): Json[] {
  const exception = event.exception;
  const values = Array.isArray(exception) ? exception : object(exception)?.values;
  if (!Array.isArray(values)) return [];
  const found: Json[] = [];
  for (const value of values) {
    const exceptionObject = object(value);
    if (exceptionObject) found.push(exceptionObject);
  }
  return found;
}

/** What the error-message filter matches: the log message and each exception as `Type: value`. */
export function messagesOf(event: Json): string[] {
  const messages: string[] = [];
  const message = event.message;
  const logentry = object(event.logentry) ?? object(message);
  if (logentry) {
    const formatted = text(logentry.formatted);
    const raw = text(logentry.message);
    if (formatted !== undefined) messages.push(formatted);
    if (raw !== undefined && raw !== formatted) messages.push(raw);
  }
  if (typeof message === 'string') messages.push(message);
  for (const exception of exceptionsOf(event)) {
    const type = text(exception.type);
    const value = text(exception.value);
    if (type !== undefined && value !== undefined) messages.push(`${type}: ${value}`);
    else if (type !== undefined || value !== undefined) messages.push((type ?? value)!);
  }
  return messages;
}

/** Where each exception was thrown: its stack's last (innermost) frame's `abs_path` or `filename`. */
export function thrownFromOf(exception: Json): string | undefined {
  const frames = object(exception.stacktrace)?.frames;
  if (!Array.isArray(frames) || frames.length === 0) return undefined;
  const frame = object(frames[frames.length - 1]);
  return frame ? (text(frame.abs_path) ?? text(frame.filename)) : undefined;
}

export function requestUrlOf(event: Json): string | undefined {
  return text(object(event.request)?.url);
}

export function userIpOf(event: Json): string | undefined {
  return text(object(event.user)?.ip_address);
}

export function releaseOf(event: Json): string | undefined {
  return text(event.release);
}
