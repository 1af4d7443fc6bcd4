/**
 * Reads the `session` and `sessions` items of an envelope into the updates the session recorder
 * applies (https://develop.sentry.dev/sdk/telemetry/sessions/). Pure: ingest calls it once the body
 * is read. The rules follow Relay's (getsentry/relay, `processor/session.rs` and
 * `protocol/session.rs`):
 *
 * - a session needs `attrs.release` (a valid release name) and `started`; an update whose
 *   `started` or `timestamp` lies more than 5 days in the past, or more than a minute in the
 *   future, is skipped; a `timestamp` before `started` is taken as `started`;
 * - statuses are `ok`, `exited`, `errored`, `crashed`, `abnormal` and `unhandled`; any other is
 *   skipped; a status other than `ok` ends the session;
 * - an invalid `environment` is dropped, not the session;
 * - an aggregate's bucket counts `exited + errored + abnormal + unhandled + crashed` sessions.
 *
 * Whatever is skipped is reported as a count by reason, never as an error: the envelope's other
 * items are handled as usual.
 */

/** How a session is counted, from the healthiest to the worst; a session keeps the worst it reached. */
export const enum SessionClass {
  Healthy = 0,
  Errored = 1,
  Unhandled = 2,
  Abnormal = 3,
  Crashed = 4,
}

const CLASS_OF_STATUS: Record<string, SessionClass> = {
  ok: SessionClass.Healthy,
  exited: SessionClass.Healthy,
  errored: SessionClass.Errored,
  unhandled: SessionClass.Unhandled,
  abnormal: SessionClass.Abnormal,
  crashed: SessionClass.Crashed,
};

/** Where a session is counted: the hour it started in, its release and environment ('' for none). */
export interface SessionBucket {
  /** Hours since the epoch of `started`. */
  hour: number;
  release: string;
  environment: string;
}

/** One update of one session (a `session` item). */
export interface SessionUpdate extends SessionBucket {
  kind: 'update';
  /** The session id, lower-case. */
  sid: string;
  /**
   * The update's place in the session's history: `seq` when the SDK sends it, else the update's
   * `timestamp` in milliseconds (Relay defaults `seq` to a clock too). An update that does not come
   * after the last one applied is a resend or a late copy, and changes nothing.
   */
  order: number;
  sessionClass: SessionClass;
  ended: boolean;
  /** The SDK's first update of the session (`init: true`): what counts it when no state is kept. */
  init: boolean;
  /** The distinct id (`did`) as sent: ingest hashes it before it goes anywhere. */
  did?: string;
}

/** One bucket of a `sessions` item: sessions counted by the SDK. */
export interface SessionAggregate extends SessionBucket {
  kind: 'aggregate';
  sessions: number;
  /** Errored, unhandled included (Sentry's `errored` status group): neither crashed nor abnormal. */
  errored: number;
  abnormal: number;
  crashed: number;
  did?: string;
}

export type SessionRecord = SessionUpdate | SessionAggregate;

/** Why a session item, or an aggregate bucket, was skipped: the outcome's reason. */
export type SessionSkipReason =
  'invalid_json' | 'invalid_release' | 'invalid_status' | 'timestamp' | 'invalid_session' | 'too_large';

export interface SessionItemsResult {
  records: SessionRecord[];
  skipped: Map<SessionSkipReason, number>;
}

export const MAX_SESSION_AGE_MS = 5 * 24 * 3_600_000;
/** Relay's `max_secs_in_future` default: clocks a little ahead are fine, more is a lie. */
export const MAX_FUTURE_MS = 60_000;
/** One aggregate bucket counts one minute of one process: more than this is not a count. */
export const MAX_AGGREGATE_COUNT = 1_000_000;
/** A `sessions` item of the Node SDK holds one bucket per minute of requests, a few at most. */
export const MAX_AGGREGATE_BUCKETS = 100;
const MAX_RELEASE_LENGTH = 200;
const MAX_ENVIRONMENT_LENGTH = 64;
const MAX_DID_LENGTH = 256;
const HOUR_MS = 3_600_000;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** The session items and aggregate items of one envelope (`undefined`: an item past the byte budget). */
export function readSessionItems(
  sessions: readonly ({ payload: string } | undefined)[],
  aggregates: readonly ({ payload: string } | undefined)[],
  now: number,
): SessionItemsResult {
  const result: SessionItemsResult = { records: [], skipped: new Map() };
  const skip = (reason: SessionSkipReason, quantity = 1) =>
    result.skipped.set(reason, (result.skipped.get(reason) ?? 0) + quantity);
  for (const item of sessions) {
    if (item === undefined) {
      skip('too_large');
      continue;
    }
    const read = readUpdate(item.payload, now);
    if (typeof read === 'string') skip(read);
    else result.records.push(read);
  }
  for (const item of aggregates) {
    if (item === undefined) {
      skip('too_large');
      continue;
    }
    readAggregates(item.payload, now, result.records, skip);
  }
  return result;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Sentry's timestamps: RFC 3339 text, or seconds since the epoch as a number. */
function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value * 1000 : undefined;
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function inRange(ms: number, now: number): boolean {
  return now - ms <= MAX_SESSION_AGE_MS && ms - now <= MAX_FUTURE_MS;
}

/**
 * Sentry's release name rules: at most 200 characters, no line breaks, tabs, `/` or `\\`, and not
 * `.`, `..`, a space or `latest` alone.
 */
export function validRelease(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_RELEASE_LENGTH &&
    !/[\n\r\t\f\v/\\]/.test(value) &&
    value !== '.' &&
    value !== '..' &&
    value !== ' ' &&
    value !== 'latest'
  );
}

function environmentOf(value: unknown): string {
  if (typeof value !== 'string') return '';
  const valid =
    value.length > 0 &&
    value.length <= MAX_ENVIRONMENT_LENGTH &&
    !/[\n\r\t/\\]/.test(value) &&
    value.trim() === value;
  return valid ? value : '';
}

function didOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value === '') return undefined;
  return value.length > MAX_DID_LENGTH ? value.slice(0, MAX_DID_LENGTH) : value;
}

function attributesOf(
  fields: Record<string, unknown>,
): { release: string; environment: string } | SessionSkipReason {
  const attrs = fields.attrs;
  if (attrs === null || typeof attrs !== 'object' || Array.isArray(attrs)) return 'invalid_release';
  const { release, environment } = attrs as Record<string, unknown>;
  if (!validRelease(release)) return 'invalid_release';
  return { release, environment: environmentOf(environment) };
}

function readUpdate(text: string, now: number): SessionUpdate | SessionSkipReason {
  const fields = parseObject(text);
  if (fields === undefined) return 'invalid_json';
  const attributes = attributesOf(fields);
  if (typeof attributes === 'string') return attributes;
  const status = fields.status ?? 'ok';
  if (typeof status !== 'string' || !Object.hasOwn(CLASS_OF_STATUS, status)) return 'invalid_status';
  const sid = fields.sid;
  if (typeof sid !== 'string' || !UUID.test(sid)) return 'invalid_session';
  const errors = fields.errors ?? 0;
  if (typeof errors !== 'number' || !Number.isSafeInteger(errors) || errors < 0) return 'invalid_session';
  const started = timeOf(fields.started);
  const sent = fields.timestamp === undefined ? now : timeOf(fields.timestamp);
  if (started === undefined || sent === undefined) return 'invalid_session';
  const timestamp = Math.max(sent, started);
  if (!inRange(started, now) || !inRange(timestamp, now)) return 'timestamp';
  const seq = fields.seq;
  if (seq !== undefined && (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0)) {
    return 'invalid_session';
  }
  let sessionClass = CLASS_OF_STATUS[status];
  // A session that met errors but ended well is errored (Relay: errors > 0 or an error status).
  if (sessionClass === SessionClass.Healthy && errors > 0) sessionClass = SessionClass.Errored;
  const update: SessionUpdate = {
    kind: 'update',
    sid: sid.replace(/-/g, '').toLowerCase(),
    order: seq ?? Math.round(timestamp),
    sessionClass,
    ended: status !== 'ok',
    init: fields.init === true,
    hour: Math.floor(started / HOUR_MS),
    ...attributes,
  };
  const did = didOf(fields.did);
  if (did !== undefined) update.did = did;
  return update;
}

function countOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return 0;
  return typeof value === 'number' &&
    Number.isSafeInteger(value) &&
    value >= 0 &&
    value <= MAX_AGGREGATE_COUNT
    ? value
    : undefined;
}

/**
 * A `sessions` item's buckets. A bucket that cannot be trusted (a count negative, fractional or
 * absurd, a `started` out of range) is skipped alone; an item without a valid release, or that is
 * not an object with a list of buckets, is skipped whole.
 */
function readAggregates(
  text: string,
  now: number,
  into: SessionRecord[],
  skip: (reason: SessionSkipReason, quantity?: number) => void,
): void {
  const fields = parseObject(text);
  if (fields === undefined) return skip('invalid_json');
  const attributes = attributesOf(fields);
  if (typeof attributes === 'string') return skip(attributes);
  const buckets = fields.aggregates;
  if (!Array.isArray(buckets) || buckets.length > MAX_AGGREGATE_BUCKETS) return skip('invalid_session');
  for (const bucket of buckets as unknown[]) {
    if (bucket === null || typeof bucket !== 'object' || Array.isArray(bucket)) {
      skip('invalid_session');
      continue;
    }
    const entry = bucket as Record<string, unknown>;
    const started = timeOf(entry.started);
    if (started === undefined) {
      skip('invalid_session');
      continue;
    }
    if (!inRange(started, now)) {
      skip('timestamp');
      continue;
    }
    const counts = ['exited', 'errored', 'abnormal', 'unhandled', 'crashed'].map((name) =>
      countOf(entry[name]),
    );
    if (counts.some((count) => count === undefined)) {
      skip('invalid_session');
      continue;
    }
    const [exited, errored, abnormal, unhandled, crashed] = counts as number[];
    const sessions = exited + errored + abnormal + unhandled + crashed;
    if (sessions === 0) continue;
    const aggregate: SessionAggregate = {
      kind: 'aggregate',
      hour: Math.floor(started / HOUR_MS),
      ...attributes,
      sessions,
      errored: errored + unhandled,
      abnormal,
      crashed,
    };
    const did = didOf(entry.did);
    if (did !== undefined) aggregate.did = did;
    into.push(aggregate);
  }
}

/** The worst class an aggregate bucket's sessions reached: what its user is counted as. */
export function worstClassOf(aggregate: SessionAggregate): SessionClass {
  if (aggregate.crashed > 0) return SessionClass.Crashed;
  if (aggregate.abnormal > 0) return SessionClass.Abnormal;
  if (aggregate.errored > 0) return SessionClass.Errored;
  return SessionClass.Healthy;
}
