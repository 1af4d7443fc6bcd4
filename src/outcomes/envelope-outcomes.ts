/**
 * What an envelope says about the data that did not become an event: the client reports an SDK
 * sends (https://develop.sentry.dev/sdk/telemetry/client-reports/) and the item types this server
 * does not handle yet. Pure: ingest calls it once the body is read, and only for envelopes that
 * carry something other than one event.
 */

/** Sentry's outcome kinds, and `unsupported`: accepted by ingest, but nothing here stores it yet. */
export const OUTCOMES = [
  'accepted',
  'filtered',
  'rate_limited',
  'invalid',
  'client_discard',
  'unsupported',
] as const;
export type Outcome = (typeof OUTCOMES)[number];
/** The outcomes that are counted as they happen; `accepted` is read from the event rollups. */
export type DroppedOutcome = Exclude<Outcome, 'accepted'>;

export interface OutcomeCount {
  outcome: DroppedOutcome;
  category: string;
  reason: string;
  quantity: number;
}

/** One SDK's report covers a few seconds to minutes of discards; more than this is a lie or a bug. */
export const MAX_REPORT_QUANTITY = 1_000_000_000;
/** Reasons × categories an SDK knows is a few dozen: a longer report is not one. */
export const MAX_REPORT_ENTRIES = 1_000;

/**
 * The lists a client report may hold, and the outcome each counts as: `discarded_events`, and the
 * lists of older SDKs, which Sentry counts as rate limited or filtered rather than discarded.
 */
const REPORT_LISTS: [string, DroppedOutcome][] = [
  ['discarded_events', 'client_discard'],
  ['rate_limited_events', 'rate_limited'],
  ['filtered_events', 'filtered'],
  ['filtered_sampling_events', 'filtered'],
];

/** A report that cannot be read counts as one invalid item of the SDK's own data. */
export const INVALID_CLIENT_REPORT: OutcomeCount = {
  outcome: 'invalid',
  category: 'internal',
  reason: 'client_report',
  quantity: 1,
};

/**
 * The discard reasons of Sentry's client-report protocol
 * (https://develop.sentry.dev/sdk/telemetry/client-reports/) and the data categories its SDKs
 * report. They become Redis fields, rows and metric labels, so the sets are closed: a name outside
 * them is `other`. An open set let one DSN create rows without bound, one new name per entry.
 */
export const DISCARD_REASONS = [
  'queue_overflow',
  'cache_overflow',
  'buffer_overflow',
  'ratelimit_backoff',
  'network_error',
  'sample_rate',
  'before_send',
  'event_processor',
  'send_error',
  'internal_sdk_error',
  'insufficient_data',
  'backpressure',
  'ignored',
  'invalid',
  'no_parent_span',
  'callback_error',
] as const;
const KNOWN_REASONS: ReadonlySet<string> = new Set(DISCARD_REASONS);

export const DATA_CATEGORIES = [
  'default',
  'error',
  'transaction',
  'security',
  'attachment',
  'attachment_item',
  'session',
  'profile',
  'profile_chunk',
  'profile_chunk_ui',
  'replay',
  'monitor',
  'span',
  'log_item',
  'log_byte',
  'feedback',
  'user_report_v2',
  'metric',
  'metric_bucket',
  'trace_metric',
  'uptime',
  'internal',
  'unknown',
] as const;
const KNOWN_CATEGORIES: ReadonlySet<string> = new Set(DATA_CATEGORIES);

/** A name of the closed set, or `other`. */
function knownName(known: ReadonlySet<string>, value: string): string {
  return known.has(value) ? value : 'other';
}

export const reasonName = (value: string): string => knownName(KNOWN_REASONS, value);
export const categoryName = (value: string): string => knownName(KNOWN_CATEGORIES, value);

export const CATEGORY_OF_ITEM_TYPE: Record<string, string> = {
  transaction: 'transaction',
  span: 'span',
  log: 'log_item',
  profile: 'profile',
  profile_chunk: 'profile',
  replay_event: 'replay',
  replay_recording: 'replay',
  replay_video: 'replay',
  check_in: 'monitor',
  session: 'session',
  sessions: 'session',
  feedback: 'feedback',
  user_report: 'feedback',
  attachment: 'attachment',
  statsd: 'metric',
  metric_buckets: 'metric',
  event: 'error',
};

export function categoryOfItemType(type: string): string {
  return Object.hasOwn(CATEGORY_OF_ITEM_TYPE, type) ? CATEGORY_OF_ITEM_TYPE[type] : 'unknown';
}

/**
 * Item types ingest handles itself: events, feedback and check-ins are queued, client reports read
 * here, sessions recorded, attachments stored.
 */
const HANDLED_ITEM_TYPES = new Set([
  'event',
  'client_report',
  'feedback',
  'user_report',
  'session',
  'sessions',
  'attachment',
  'check_in',
]);

/**
 * The outcomes of an envelope's items: one `unsupported` per item of a type not handled, and the
 * entries of its client reports (`reports[i]` undefined: a report too large to keep, invalid).
 */
export function envelopeOutcomes(
  itemTypes: readonly string[],
  reports: readonly (string | undefined)[],
): OutcomeCount[] {
  const counts = new OutcomeTally();
  for (const type of itemTypes) {
    if (!HANDLED_ITEM_TYPES.has(type)) {
      counts.add({
        outcome: 'unsupported',
        category: categoryOfItemType(type),
        reason: Object.hasOwn(CATEGORY_OF_ITEM_TYPE, type) ? type : 'other',
        quantity: 1,
      });
    }
  }
  for (const report of reports) {
    for (const count of report === undefined ? [INVALID_CLIENT_REPORT] : clientReportOutcomes(report))
      counts.add(count);
  }
  return counts.list();
}

/**
 * A client report's entries as `client_discard` counts, merged by category and reason. A report
 * that breaks the format anywhere (not JSON, a quantity that is negative, fractional or absurd, a
 * reason that is not text …) counts as one invalid `client_report` and none of its entries: one
 * lying entry makes the others untrustworthy too.
 */
export function clientReportOutcomes(text: string): OutcomeCount[] {
  const entries = reportEntries(text);
  if (entries === undefined) return [INVALID_CLIENT_REPORT];
  const counts = new OutcomeTally();
  for (const { outcome, reason, category, quantity } of entries) {
    if (quantity > 0)
      counts.add({ outcome, category: categoryName(category), reason: reasonName(reason), quantity });
  }
  return counts.list();
}

interface ReportEntry {
  outcome: DroppedOutcome;
  reason: string;
  category: string;
  quantity: number;
}

function reportEntries(text: string): ReportEntry[] | undefined {
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (report === null || typeof report !== 'object' || Array.isArray(report)) return undefined;
  const fields = report as Record<string, unknown>;
  const timestamp = fields.timestamp;
  if (timestamp !== undefined && typeof timestamp !== 'number' && typeof timestamp !== 'string')
    return undefined;
  const entries: ReportEntry[] = [];
  for (const [name, outcome] of REPORT_LISTS) {
    const list = fields[name];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || entries.length + list.length > MAX_REPORT_ENTRIES) return undefined;
    for (const entry of list as unknown[]) {
      if (!isReportEntry(entry)) return undefined;
      entries.push({ ...entry, outcome });
    }
  }
  return entries;
}

function isReportEntry(entry: unknown): entry is Omit<ReportEntry, 'outcome'> {
  if (entry === null || typeof entry !== 'object') return false;
  const { reason, category, quantity } = entry as Record<string, unknown>;
  return (
    typeof reason === 'string' &&
    typeof category === 'string' &&
    typeof quantity === 'number' &&
    Number.isSafeInteger(quantity) &&
    quantity >= 0 &&
    quantity <= MAX_REPORT_QUANTITY
  );
}

/** Sums counts of the same outcome, category and reason, in the order first seen. */
export class OutcomeTally {
  private readonly byKey = new Map<string, OutcomeCount>();

  add(count: OutcomeCount): void {
    const key = `${count.outcome}:${count.category}:${count.reason}`;
    const known = this.byKey.get(key);
    if (known) known.quantity += count.quantity;
    else this.byKey.set(key, { ...count });
  }

  list(): OutcomeCount[] {
    return [...this.byKey.values()];
  }
}

/** Short reasons for a malformed envelope, from the refusal's message: first match wins. */
const MALFORMED_REASONS: [RegExp, string][] = [
  [/nested deeper/, 'too_deep'],
  [/JSON/, 'invalid_json'],
  [/is empty/, 'empty'],
  [/event_id/, 'invalid_event_id'],
  [/length/, 'invalid_length'],
  [/header/, 'invalid_header'],
  [/not valid \w+ data|compress|base64/, 'invalid_compression'],
  [/aborted|could not be read/, 'aborted'],
];

/**
 * What ingest's refusal of a request with a valid client key counts as, or undefined for refusals
 * that are not the SDK's data being dropped (an outage's 503). `itemType`: the refused item's type
 * when the body was read that far; a rate-limited request is refused before its body is read.
 */
export function refusalOutcome(
  status: number,
  message: string,
  itemType: string | undefined,
): OutcomeCount | undefined {
  const category = itemType === undefined ? 'error' : categoryOfItemType(itemType);
  switch (status) {
    case 429:
      return { outcome: 'rate_limited', category, reason: 'rate_limit', quantity: 1 };
    case 413:
      return { outcome: 'invalid', category, reason: 'too_large', quantity: 1 };
    case 415:
      return { outcome: 'invalid', category, reason: 'unsupported_encoding', quantity: 1 };
    case 400: {
      const reason = MALFORMED_REASONS.find(([pattern]) => pattern.test(message))?.[1] ?? 'malformed';
      return { outcome: 'invalid', category, reason, quantity: 1 };
    }
    default:
      return undefined;
  }
}
