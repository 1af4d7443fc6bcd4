/** The sizes an envelope is read within; past them it is refused (see EnvelopeReader). */

export const MAX_EVENT_BYTES = 1024 * 1024;
/** Header lines are small JSON objects (event id, sdk, trace context); anything longer is not an envelope. */
export const MAX_HEADER_LINE_BYTES = 16 * 1024;
/**
 * SDKs send an event with a few attachments, or a replay in two items; a thousand items is a
 * flood of item headers to parse, not a report.
 */
export const MAX_ITEMS = 1_000;

export interface EnvelopeLimits {
  maxEventBytes: number;
  maxHeaderLineBytes: number;
  maxItems: number;
}

export const DEFAULT_ENVELOPE_LIMITS: EnvelopeLimits = {
  maxEventBytes: MAX_EVENT_BYTES,
  maxHeaderLineBytes: MAX_HEADER_LINE_BYTES,
  maxItems: MAX_ITEMS,
};
