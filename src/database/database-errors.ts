/**
 * What a failed database call means for the caller: wait for the database to come back, try the
 * same work again at once, or give up on this data for good.
 *
 * - `unavailable`: the server cannot be reached or is going away (connection refused or reset,
 *   SQLSTATE classes 08 connection exception, 57P admin shutdown, 53 insufficient resources, the
 *   driver's pool and socket errors). Nothing is wrong with the data: retrying later succeeds.
 * - `conflict`: serialization failure or deadlock (40001, 40P01): retry now.
 * - `data`: the server refused this data (22 data exception, 23 integrity, 54 program limit, 42
 *   syntax or access, XX internal): retrying the same data fails the same way.
 * - `unknown`: anything else, such as a bug in our own code; worth a few bounded retries.
 */
export type DatabaseFailure = 'unavailable' | 'conflict' | 'data' | 'unknown';

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

/** node-postgres reports a lost or refused connection without a code, only by its message. */
const UNAVAILABLE_MESSAGES = [
  'connection terminated',
  'timeout exceeded when trying to connect',
  'connection timeout',
  'client has encountered a connection error',
  'cannot use a pool after calling end',
  'the database system is starting up',
  'the database system is shutting down',
  'terminating connection',
  'connection is insecure',
  'econnrefused',
  'server closed the connection unexpectedly',
  'query read timeout', // node-postgres' query_timeout
];

export function classifyDatabaseError(error: unknown): DatabaseFailure {
  const code = codeOf(error);
  if (code !== undefined) {
    if (SOCKET_ERROR_CODES.has(code)) return 'unavailable';
    if (/^(08|53|57P|58)/.test(code)) return 'unavailable';
    if (code === '40001' || code === '40P01') return 'conflict';
    if (/^(22|23|54|42|XX|2B|0A)/.test(code)) return 'data';
  }
  const message = messageOf(error).toLowerCase();
  if (UNAVAILABLE_MESSAGES.some((fragment) => message.includes(fragment))) return 'unavailable';
  return 'unknown';
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return classifyDatabaseError(error) === 'unavailable';
}

function codeOf(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const record = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = record.code ?? record.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  if (error === null || typeof error !== 'object') return String(error);
  const record = error as { message?: unknown; driverError?: { message?: unknown } };
  return [record.message, record.driverError?.message].filter((part) => typeof part === 'string').join(' ');
}
