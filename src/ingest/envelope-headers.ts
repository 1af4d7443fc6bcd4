/**
 * The header lines of an envelope: the envelope's own, then one per item, each a JSON object. An
 * item header names the item's `type` and may give its payload's `length` in bytes.
 */
import { EnvelopeError } from './envelope-error';

/** The envelope header: any JSON object (its `event_id`, `sdk`, `dsn`, trace context …). */
export function parseEnvelopeHeader(line: string): Record<string, unknown> {
  return parseHeaderLine(line, 'envelope header');
}

/** An item header and its type, which every item must have. */
export function parseItemHeader(line: string): { header: Record<string, unknown>; type: string } {
  const header = parseHeaderLine(line, 'item header');
  const type = header.type;
  if (typeof type !== 'string' || type === '') throw new EnvelopeError(400, 'item header has no type');
  return { header, type };
}

/**
 * The item's payload length in bytes, or undefined when its header gives none (the payload then
 * runs to the next newline).
 */
export function itemLength(header: Record<string, unknown>): number | undefined {
  const length = header.length;
  if (length === undefined || length === null) return undefined;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw new EnvelopeError(400, 'item length must be a non-negative integer');
  }
  return length;
}

/** Whether buffer[start, end) holds only spaces, tabs and carriage returns. */
export function isBlankLine(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buffer[i];
    if (c !== 0x20 && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}

function parseHeaderLine(line: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new EnvelopeError(400, `${what} is not valid JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new EnvelopeError(400, `${what} is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}
