import {
  CATEGORY_OF_ITEM_TYPE,
  DATA_CATEGORIES,
  DISCARD_REASONS,
} from '../../src/outcomes/envelope-outcomes';
import { FILTER_REASONS } from '../../src/privacy/filters/inbound-filters';
import type { SessionSkipReason } from '../../src/releases/health/session-items';
import type { CheckInDropReason } from '../../src/crons/check-in-store.service';
import type { FeedbackRefusal } from '../../src/feedback/feedback-record';
import type { QuotaReason } from '../../src/limits/quota-periods';
import { CATEGORY_WORDS, categoryWords, REASON_WORDS, reasonWords, UNSUPPORTED_TYPES } from './outcome-words';

/**
 * The reasons the server records that are declared as types: a new one fails to compile here
 * until it is listed (and so gets words below).
 */
const TYPED_REASONS: Record<SessionSkipReason | CheckInDropReason | FeedbackRefusal | QuotaReason, true> = {
  invalid_json: true,
  invalid_release: true,
  invalid_status: true,
  timestamp: true,
  invalid_session: true,
  too_large: true,
  invalid_monitor: true,
  checkin_finished: true,
  guid_mismatch: true,
  monitor_limit_exceeded: true,
  monitor_environment_limit_exceeded: true,
  empty_message: true,
  message_too_large: true,
  name_too_large: true,
  email_too_large: true,
  invalid_event_id: true,
  daily_quota: true,
  monthly_quota: true,
  spike_protection: true,
};

/** The rest of what docs/outcomes.md lists: ingest's refusals, limits, session and check-in reasons. */
const OTHER_SERVER_REASONS = [
  'rate_limit',
  'session_quota',
  'release_limit',
  'untracked_session',
  'invalid_length',
  'invalid_header',
  'invalid_compression',
  'unsupported_encoding',
  'too_deep',
  'empty',
  'aborted',
  'malformed',
  'missing_event_id',
  'client_report',
  'invalid_monitor_config',
  'other',
];

describe('outcomes in words', () => {
  it('has words for every reason the SDKs and the server give', () => {
    const reasons = [
      ...DISCARD_REASONS,
      ...FILTER_REASONS,
      ...Object.keys(TYPED_REASONS),
      ...OTHER_SERVER_REASONS,
    ];
    expect(reasons.length).toBeGreaterThan(50);
    const missing = reasons.filter((reason) => !Object.hasOwn(REASON_WORDS, reason));
    expect(missing).toEqual([]);
    for (const reason of reasons) expect(reasonWords('client_discard', reason)).not.toBe(reason);
  });

  it('names every data category and every item type the server does not store', () => {
    expect(DATA_CATEGORIES.filter((category) => !Object.hasOwn(CATEGORY_WORDS, category))).toEqual([]);
    const unsupported = [...Object.keys(CATEGORY_OF_ITEM_TYPE), 'other'].filter(
      (type) =>
        !['event', 'session', 'sessions', 'feedback', 'user_report', 'attachment', 'check_in'].includes(type),
    );
    expect(unsupported.length).toBeGreaterThan(5);
    expect(unsupported.filter((type) => !UNSUPPORTED_TYPES.includes(type))).toEqual([]);
  });

  it('writes the reasons of the report in words, and an unknown code as it is', () => {
    expect(reasonWords('client_discard', 'no_parent_span')).toMatch(/parent span/);
    expect(reasonWords('client_discard', 'ratelimit_backoff')).toMatch(/rate limited/);
    expect(reasonWords('filtered', 'error_message')).toBe('inbound filter: error message');
    expect(reasonWords('rate_limited', 'daily_quota')).toBe('over the project’s daily quota');
    expect(reasonWords('unsupported', 'transaction')).toBe('transaction items');
    expect(reasonWords('accepted', null)).toBe('');
    expect(reasonWords('invalid', 'brand_new_reason')).toBe('brand_new_reason');
    expect(categoryWords('span')).toBe('Spans');
    expect(categoryWords('brand_new')).toBe('brand_new');
  });
});
