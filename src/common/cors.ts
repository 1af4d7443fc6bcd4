/**
 * One list for the management API (through Express' CORS middleware) and for ingestion (answered
 * ahead of Express): the spec's headers plus what Sentry SDKs send and need to read.
 */
export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-Client-Auth',
  'X-Sentry-Auth',
  'Content-Encoding',
  'sentry-trace',
  'baggage',
];

/** Browser SDKs back off only if they can read these. */
export const CORS_EXPOSED_HEADERS = ['Retry-After', 'X-Sentry-Rate-Limits'];
