/**
 * Outcomes in words (docs/outcomes.md): data categories, outcome kinds and the reasons the server
 * and the SDKs give, so that the Usage page says "the SDK backed off after a rate limit" rather
 * than `ratelimit_backoff`. Pure, for the page and its unit test.
 */

/** Data categories as a heading names them. */
export const CATEGORY_WORDS: Record<string, string> = {
  error: 'Errors',
  default: 'Default events',
  transaction: 'Transactions',
  security: 'Security reports',
  attachment: 'Attachments',
  attachment_item: 'Attachment items',
  session: 'Sessions',
  profile: 'Profiles',
  profile_chunk: 'Profile chunks',
  profile_chunk_ui: 'UI profile chunks',
  replay: 'Replays',
  monitor: 'Cron check-ins',
  span: 'Spans',
  log_item: 'Logs',
  log_byte: 'Log bytes',
  feedback: 'User feedback',
  user_report_v2: 'User reports',
  metric: 'Metrics',
  metric_bucket: 'Metric buckets',
  trace_metric: 'Trace metrics',
  uptime: 'Uptime checks',
  internal: 'SDK reports',
  unknown: 'Unknown items',
  other: 'Other data',
};

export function categoryWords(category: string): string {
  return Object.hasOwn(CATEGORY_WORDS, category) ? CATEGORY_WORDS[category] : category;
}

export type OutcomeKind = 'accepted' | 'filtered' | 'rate_limited' | 'invalid' | 'client_discard' | 'unsupported';

export const OUTCOME_WORDS: Record<OutcomeKind, string> = {
  accepted: 'Accepted',
  filtered: 'Filtered',
  rate_limited: 'Rate limited',
  invalid: 'Invalid',
  client_discard: 'Discarded by the SDK',
  unsupported: 'Not stored (unsupported)',
};

/**
 * Why data was dropped: the discard reasons of Sentry's client-report protocol (the SDK's side),
 * then the server's own (inbound filters, limits and quotas, what ingest refuses as invalid).
 */
export const REASON_WORDS: Record<string, string> = {
  // Sentry's client-report discard reasons: what the SDK did itself.
  queue_overflow: 'the SDK’s send queue was full',
  cache_overflow: 'the SDK’s offline cache was full',
  buffer_overflow: 'an SDK buffer was full',
  ratelimit_backoff: 'the SDK held back after being rate limited',
  network_error: 'a network error while sending',
  sample_rate: 'sampled out by the SDK’s sample rate',
  before_send: 'dropped by beforeSend',
  event_processor: 'dropped by an event processor',
  send_error: 'the server refused it (the SDK’s count)',
  internal_sdk_error: 'an error inside the SDK',
  insufficient_data: 'too little data to send',
  backpressure: 'the SDK shed load under backpressure',
  ignored: 'ignored by the SDK’s settings (ignore lists)',
  invalid: 'the SDK found it invalid',
  no_parent_span: 'a span without a parent span (expected without tracing)',
  callback_error: 'a callback of the SDK’s options threw',
  // Inbound filters of the project.
  ip_address: 'inbound filter: IP address',
  release_version: 'inbound filter: release',
  localhost: 'inbound filter: localhost',
  web_crawlers: 'inbound filter: web crawlers',
  legacy_browsers: 'inbound filter: legacy browsers',
  browser_extensions: 'inbound filter: browser extensions',
  error_message: 'inbound filter: error message',
  // Limits and quotas.
  rate_limit: 'over a rate limit of this server',
  daily_quota: 'over the project’s daily quota',
  monthly_quota: 'over the project’s monthly quota',
  spike_protection: 'spike protection',
  session_quota: 'over the project’s daily session quota',
  release_limit: 'over the hourly limit of new releases from sessions',
  untracked_session: 'an update of a session past the tracked-session cap',
  // What ingest refuses as invalid.
  too_large: 'too large',
  invalid_json: 'not valid JSON',
  invalid_length: 'an item length that does not match',
  invalid_header: 'an unreadable envelope header',
  invalid_event_id: 'an invalid event id',
  invalid_compression: 'compressed data that cannot be read',
  unsupported_encoding: 'an unsupported content encoding',
  too_deep: 'nested too deeply',
  empty: 'an empty request or item',
  aborted: 'the request was cut off',
  malformed: 'a malformed envelope',
  missing_event_id: 'an attachment that names no event',
  client_report: 'an SDK report that cannot be trusted',
  // Sessions skipped.
  invalid_release: 'no valid release',
  invalid_status: 'an unknown session status',
  timestamp: 'a timestamp too old or in the future',
  invalid_session: 'a session with missing or impossible fields',
  // User feedback refused.
  empty_message: 'feedback without a message',
  message_too_large: 'a feedback message too long',
  name_too_large: 'a name too long',
  email_too_large: 'an e-mail address too long',
  // Cron check-ins dropped.
  invalid_monitor_config: 'an invalid monitor configuration',
  invalid_monitor: 'a monitor that does not exist',
  checkin_finished: 'a check-in that had already finished',
  guid_mismatch: 'a check-in of another monitor',
  monitor_limit_exceeded: 'over the project’s number of monitors',
  monitor_environment_limit_exceeded: 'over the monitor’s number of environments',
  other: 'another reason',
};

/** Item types this server does not store, by the type an SDK gave them. */
const UNSUPPORTED_WORDS: Record<string, string> = {
  transaction: 'transaction items',
  span: 'span items',
  log: 'log items',
  profile: 'profile items',
  profile_chunk: 'profile chunk items',
  replay_event: 'replay items',
  replay_recording: 'replay recordings',
  replay_video: 'replay videos',
  statsd: 'metric items (statsd)',
  metric_buckets: 'metric buckets',
  other: 'items of an unknown type',
};

/** A reason in words; its code itself when nothing is known of it. */
export function reasonWords(outcome: OutcomeKind, reason: string | null): string {
  if (reason === null) return '';
  if (outcome === 'unsupported') return Object.hasOwn(UNSUPPORTED_WORDS, reason) ? UNSUPPORTED_WORDS[reason] : `${reason} items`;
  return Object.hasOwn(REASON_WORDS, reason) ? REASON_WORDS[reason] : reason;
}

/** Every unsupported item type with words, for the unit test. */
export const UNSUPPORTED_TYPES = Object.keys(UNSUPPORTED_WORDS);
