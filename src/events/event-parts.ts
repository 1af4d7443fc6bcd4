import { createHash } from 'node:crypto';

/**
 * The parts of an event that its issue's other events almost always repeat word for word: each
 * exception's stack trace (same code path, same frames) and the SDK description (its integrations
 * list). They are more than half of a typical event, and TOAST compresses each row on its own, so
 * repeating them is what fills the disk. They are stored once per issue and span of seven days in
 * `event_parts`, under the span's last day (see partDay; dropped with that day's events partition,
 * so never before the events that refer to them), and the payload keeps a reference.
 */
export const PART_REF = '$part';

/** Where parts sit in a stored payload: each `exception.values[i].stacktrace` (and `raw_stacktrace`), and `sdk`. */
type PartSlot = { get: () => unknown; set: (value: unknown) => void };

export interface SplitPayload {
  payload: Record<string, unknown>;
  /** Content (JSON text) by hash. */
  parts: Map<string, string>;
}

/** A part's key: the first 16 bytes of the SHA-256 of its JSON text, as hex. */
export function partHash(json: string): string {
  return createHash('sha256').update(json).digest('hex').slice(0, 32);
}

/** Replaces the parts of a payload (a fresh copy, never the caller's) with references to them. */
export function splitParts(payload: Record<string, unknown>): SplitPayload {
  const copy = { ...payload };
  const parts = new Map<string, string>();
  for (const slot of slotsOf(copy, true)) {
    const value = slot.get();
    if (!isRecord(value)) continue;
    const json = JSON.stringify(value);
    const hash = partHash(json);
    parts.set(hash, json);
    slot.set({ [PART_REF]: hash });
  }
  return { payload: copy, parts };
}

/** The hashes a stored payload refers to (none for events stored before parts existed). */
export function partRefs(payload: Record<string, unknown>): string[] {
  const refs: string[] = [];
  for (const slot of slotsOf(payload, false)) {
    const ref = refOf(slot.get());
    if (ref) refs.push(ref);
  }
  return refs;
}

/** Puts the parts back; a reference whose part is missing is left out (the slot becomes null). */
export function joinParts(
  payload: Record<string, unknown>,
  parts: Map<string, unknown>,
): Record<string, unknown> {
  const copy = { ...payload };
  for (const slot of slotsOf(copy, true)) {
    const ref = refOf(slot.get());
    if (ref) slot.set(parts.get(ref) ?? null);
  }
  return copy;
}

function refOf(value: unknown): string | null {
  if (!isRecord(value)) return null;
  const keys = Object.keys(value);
  const ref = value[PART_REF];
  return keys.length === 1 && typeof ref === 'string' && /^[0-9a-f]{32}$/.test(ref) ? ref : null;
}

/**
 * The part slots of a payload. With `copying`, the containers on the way (exception, its values,
 * each value) are replaced by copies first, so that setting a slot never touches the original.
 */
function slotsOf(payload: Record<string, unknown>, copying: boolean): PartSlot[] {
  const slots: PartSlot[] = [{ get: () => payload.sdk, set: (value) => (payload.sdk = value) }];
  let exception = payload.exception;
  if (!isRecord(exception) || !Array.isArray(exception.values)) return slots;
  if (copying) {
    exception = { ...exception, values: [...(exception.values as unknown[])] };
    payload.exception = exception;
  }
  const values = (exception as { values: unknown[] }).values;
  values.forEach((entry, index) => {
    if (!isRecord(entry)) return;
    const value = copying ? { ...entry } : entry;
    if (copying) values[index] = value;
    slots.push({ get: () => value.stacktrace, set: (part) => (value.stacktrace = part) });
    // The frames as sent, before source maps: as repetitive as the resolved ones.
    if (value.raw_stacktrace !== undefined) {
      slots.push({ get: () => value.raw_stacktrace, set: (part) => (value.raw_stacktrace = part) });
    }
  });
  return slots;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
