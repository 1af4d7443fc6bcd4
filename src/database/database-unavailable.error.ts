/**
 * The database could not be reached to answer a request: the one filter answers 503, and logs it
 * once per interval rather than once per request.
 */
export class DatabaseUnavailableError extends Error {
  constructor(message = 'database unavailable, try again later') {
    super(message);
  }
}
