/**
 * What a failed database call means for the caller: wait for the database to come back, try the
 * same work again at once, or give up on this data for good.
 *
 * - `unavailable`: the server cannot take work now (unreachable, shutting down, out of disk or
 *   memory, read-only, refusing our login). Nothing is wrong with the data: the same work succeeds
 *   once the server recovers, so the caller waits and never spends an attempt.
 * - `conflict`: the statement lost a race with another transaction (deadlock, serialization, a lock
 *   it could not get): retry now.
 * - `data`: the server refused these values; retrying the same data fails the same way, while other
 *   data would succeed.
 * - `unknown`: anything else: a statement of ours the server does not understand (a bug, or a schema
 *   this version does not expect), or a bug in our own code; worth a few bounded retries, then kept
 *   for an operator to replay after the fix.
 *
 * Every class of PostgreSQL's SQLSTATE codes (Appendix A of its manual) is decided in
 * SQLSTATE_CLASSES; codes that differ from their class are in SQLSTATE_CODES. Whatever the code, an
 * error that ends the session is `unavailable` (see endsSession): the statement never ran to
 * completion on a live connection, and every error raised while a connection starts up or logs in is
 * one (a backend has no transaction to abort yet), including `XX000 could not write init file` from
 * a full disk.
 */
export type DatabaseFailure = 'unavailable' | 'conflict' | 'data' | 'unknown';

export interface DatabaseErrorContext {
  /**
   * The failing statement wrote or read the event being stored. An internal error (XX) there may
   * come from the values themselves, so it is the data's; anywhere else it is the server's state.
   */
  onEventData?: boolean;
}

/** The decision for each SQLSTATE class, by its two first characters. */
export const SQLSTATE_CLASSES: Readonly<Record<string, DatabaseFailure>> = {
  '00': 'unknown', // successful completion: never raised as an error
  '01': 'unknown', // warning
  '02': 'unknown', // no data
  '03': 'unknown', // SQL statement not yet complete
  '08': 'unavailable', // connection exception: the connection failed or was refused
  '09': 'unknown', // triggered action exception
  '0A': 'unknown', // feature not supported: a statement of ours
  '0B': 'unknown', // invalid transaction initiation
  '0F': 'unknown', // locator exception
  '0L': 'unknown', // invalid grantor
  '0P': 'unknown', // invalid role specification
  '0Z': 'unknown', // diagnostics exception
  '20': 'unknown', // case not found (PL/pgSQL)
  '21': 'data', // cardinality violation: one upsert touching a row twice, from the batch's values
  '22': 'data', // data exception: a value the type refuses (NUL in text, out of range, bad JSON)
  '23': 'data', // integrity constraint violation
  '24': 'unknown', // invalid cursor state
  '25': 'unknown', // invalid transaction state (25006 and the session timeouts below differ)
  '26': 'unknown', // invalid SQL statement name: a prepared statement a pooler lost
  '27': 'data', // triggered data change violation
  '28': 'unavailable', // invalid authorization specification: the server refuses our login
  '2B': 'unknown', // dependent privilege descriptors still exist
  '2D': 'unknown', // invalid transaction termination
  '2F': 'unknown', // SQL routine exception
  '34': 'unknown', // invalid cursor name
  '38': 'unknown', // external routine exception
  '39': 'unknown', // external routine invocation exception
  '3B': 'unknown', // savepoint exception
  '3D': 'unavailable', // invalid catalog name: the database does not exist (yet, or any more)
  '3F': 'unknown', // invalid schema name
  '40': 'conflict', // transaction rollback: serialization failure, deadlock (40002 differs)
  '42': 'unknown', // syntax error or access rule violation: a statement of ours (42501 differs)
  '44': 'data', // WITH CHECK OPTION violation
  '53': 'unavailable', // insufficient resources: disk full, out of memory, too many connections
  '54': 'data', // program limit exceeded: a value too large to index, too many elements
  '55': 'unknown', // object not in prerequisite state (the lock and in-use codes differ)
  '57': 'unavailable', // operator intervention: shutdown, crash, cannot connect now (57014 differs)
  '58': 'unavailable', // system error: I/O error, a file the server cannot find or write
  '72': 'conflict', // snapshot too old
  F0: 'unavailable', // configuration file error
  HV: 'unknown', // foreign data wrapper error
  P0: 'unknown', // PL/pgSQL error
  XX: 'unavailable', // internal error, outside a statement on event data (see classifyDatabaseError)
};

/** Codes whose meaning differs from their class's. */
export const SQLSTATE_CODES: Readonly<Record<string, DatabaseFailure>> = {
  '25006': 'unavailable', // read-only SQL transaction: a standby, or a primary demoted by failover
  '25P03': 'unavailable', // idle-in-transaction session timeout: the session was ended
  '25P04': 'unknown', // transaction timeout (PostgreSQL 17): a transaction that ran too long, maybe for its data
  '40002': 'data', // transaction integrity constraint violation: a deferred constraint
  '42501': 'unavailable', // insufficient privilege: an operator's grant, not the data
  '55006': 'conflict', // object in use
  '55P03': 'conflict', // lock not available (lock_timeout, NOWAIT)
  '57014': 'unknown', // query canceled (statement_timeout, pg_cancel_backend): maybe the data's size
};

/** Internal errors that may come from the values of a statement on event data. */
const INTERNAL_ERRORS = new Set(['XX000', 'XX001', 'XX002']);

/** Node socket and DNS errors, as the driver passes them on. */
const SOCKET_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);

/**
 * node-postgres reports a lost or refused connection without a code, only by its message; the
 * server's own messages are here for reasons recorded without their code (failed jobs of older
 * versions).
 */
const UNAVAILABLE_MESSAGES = [
  'connection terminated',
  'timeout exceeded when trying to connect',
  'connection timeout',
  'client has encountered a connection error',
  'cannot use a pool after calling end',
  'the database system is starting up',
  'the database system is shutting down',
  'the database system is in recovery mode',
  'terminating connection',
  'connection is insecure',
  'econnrefused',
  'server closed the connection unexpectedly',
  'query read timeout', // node-postgres' query_timeout
  'could not write init file',
  'no space left on device',
  'could not extend file',
  'cannot execute insert in a read-only transaction',
  'cannot execute update in a read-only transaction',
  'too many clients already',
  'remaining connection slots are reserved',
];

const SESSION_ENDING_SEVERITIES = new Set(['FATAL', 'PANIC']);

/**
 * Outages that the failing event itself may have caused: a lost connection or a server that stopped
 * answering (the event's statement may have crashed or hung its backend), a crash of another backend,
 * and running out of memory. The digest waits them out, but not forever for one event while the
 * database stores others (see DigestProcessor).
 */
const MAYBE_THE_DATA = new Set(['57P02', '53200']);

export function classifyDatabaseError(error: unknown, context: DatabaseErrorContext = {}): DatabaseFailure {
  const code = codeOf(error);
  if (code !== undefined && SOCKET_ERROR_CODES.has(code)) return 'unavailable';
  if (endsSession(error)) return 'unavailable';
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) return classifySqlState(code, context);
  const message = messageOf(error).toLowerCase();
  if (UNAVAILABLE_MESSAGES.some((fragment) => message.includes(fragment))) return 'unavailable';
  return 'unknown';
}

/** The decision for one SQLSTATE code raised by a statement (not while connecting). */
export function classifySqlState(code: string, context: DatabaseErrorContext = {}): DatabaseFailure {
  if (context.onEventData && INTERNAL_ERRORS.has(code)) return 'data';
  return SQLSTATE_CODES[code] ?? SQLSTATE_CLASSES[code.slice(0, 2)] ?? 'unknown';
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return classifyDatabaseError(error) === 'unavailable';
}

/** An outage (classifyDatabaseError) that the failing statement's own data may have caused. */
export function outageMayBeTheData(error: unknown): boolean {
  if (classifyDatabaseError(error) !== 'unavailable' || endsSession(error)) return false;
  const code = codeOf(error);
  return code === undefined || !/^[0-9A-Z]{5}$/.test(code) || MAYBE_THE_DATA.has(code);
}

/**
 * The error ended the session, or came before there was one. PostgreSQL sends every error of a
 * connection's start (login, a cache file it cannot write) as FATAL, but translates the severity
 * into the server's language; so an error of the driver's own kind (a pg DatabaseError) that TypeORM
 * did not wrap as a statement's (QueryFailedError) also counts: it was raised while connecting.
 */
function endsSession(error: unknown): boolean {
  if (SESSION_ENDING_SEVERITIES.has(severityOf(error) ?? '')) return true;
  if (error === null || typeof error !== 'object') return false;
  const record = error as { name?: unknown; length?: unknown; code?: unknown; driverError?: unknown };
  return (
    record.name === 'error' &&
    typeof record.length === 'number' &&
    typeof record.code === 'string' &&
    record.driverError === undefined
  );
}

/**
 * The error's message with its SQLSTATE and, for a session-ending one, its severity, as a failed
 * job's reason records it: `… (SQLSTATE 53100)`, `… (SQLSTATE XX000, FATAL)`. The sweeper of the
 * failed set reads them back with failureOfReason.
 */
export function describeDatabaseError(error: unknown): string {
  const message = messageOf(error) || String(error);
  const code = codeOf(error);
  if (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) return message;
  return `${message} (SQLSTATE ${code}${endsSession(error) ? ', FATAL' : ''})`;
}

/** Reads a reason written by describeDatabaseError (or only a message) back into its decision. */
export function failureOfReason(reason: string, context: DatabaseErrorContext = {}): DatabaseFailure {
  const recorded = /\(SQLSTATE ([0-9A-Z]{5})(?:, (FATAL|PANIC))?\)\s*$/.exec(reason);
  if (recorded) return recorded[2] ? 'unavailable' : classifySqlState(recorded[1], context);
  // A plain object: an Error would capture a stack for every reason read.
  return classifyDatabaseError({ message: reason });
}

function codeOf(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const record = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = record.code ?? record.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

function severityOf(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const record = error as { severity?: unknown; driverError?: { severity?: unknown } };
  const severity = record.severity ?? record.driverError?.severity;
  return typeof severity === 'string' ? severity : undefined;
}

function messageOf(error: unknown): string {
  if (error === null || typeof error !== 'object') return String(error);
  const record = error as { message?: unknown; driverError?: { message?: unknown } };
  const parts = [record.message, record.driverError?.message].filter(
    (part): part is string => typeof part === 'string',
  );
  return [...new Set(parts)].join(' ');
}
