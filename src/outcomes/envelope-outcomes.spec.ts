import {
  categoryOfItemType,
  clientReportOutcomes,
  envelopeOutcomes,
  MAX_REPORT_QUANTITY,
  categoryName,
  reasonName,
  refusalOutcome,
} from './envelope-outcomes';

const report = (body: unknown) => JSON.stringify(body);

describe('clientReportOutcomes', () => {
  it('counts every discarded entry as client_discard, the reason and category as given', () => {
    expect(
      clientReportOutcomes(
        report({
          timestamp: 1_767_000_000.5,
          discarded_events: [
            { reason: 'before_send', category: 'error', quantity: 3 },
            { reason: 'queue_overflow', category: 'transaction', quantity: 2 },
            { reason: 'before_send', category: 'error', quantity: 1 },
          ],
        }),
      ),
    ).toEqual([
      { outcome: 'client_discard', category: 'error', reason: 'before_send', quantity: 4 },
      { outcome: 'client_discard', category: 'transaction', reason: 'queue_overflow', quantity: 2 },
    ]);
  });

  it('counts the lists older SDKs send as Sentry does (rate limited, filtered), and takes an RFC 3339 timestamp', () => {
    expect(
      clientReportOutcomes(
        report({
          timestamp: '2026-11-26T10:00:00Z',
          rate_limited_events: [{ reason: 'ratelimit_backoff', category: 'error', quantity: 1 }],
          filtered_events: [{ reason: 'event_processor', category: 'error', quantity: 2 }],
          filtered_sampling_events: [{ reason: 'sample_rate', category: 'transaction', quantity: 5 }],
        }),
      ),
    ).toEqual([
      { outcome: 'rate_limited', category: 'error', reason: 'ratelimit_backoff', quantity: 1 },
      { outcome: 'filtered', category: 'error', reason: 'event_processor', quantity: 2 },
      { outcome: 'filtered', category: 'transaction', reason: 'sample_rate', quantity: 5 },
    ]);
  });

  it('calls a reason or category outside Sentry\'s sets "other", however sane its shape', () => {
    expect(
      clientReportOutcomes(
        report({
          discarded_events: [
            { reason: 'brand_new_reason', category: 'log_item', quantity: 1 },
            { reason: 'Has Spaces', category: 'log_item', quantity: 1 },
            { reason: 'before_send', category: 'x'.repeat(65), quantity: 1 },
          ],
        }),
      ),
    ).toEqual([
      { outcome: 'client_discard', category: 'log_item', reason: 'other', quantity: 2 },
      { outcome: 'client_discard', category: 'other', reason: 'before_send', quantity: 1 },
    ]);
  });

  it('skips entries of quantity 0 and an empty report', () => {
    expect(
      clientReportOutcomes(report({ discarded_events: [{ reason: 'x', category: 'error', quantity: 0 }] })),
    ).toEqual([]);
    expect(clientReportOutcomes(report({ timestamp: 1 }))).toEqual([]);
  });

  const invalid = [{ outcome: 'invalid', category: 'internal', reason: 'client_report', quantity: 1 }];
  it.each([
    ['not JSON', 'not json'],
    ['not an object', '[1, 2]'],
    ['null', 'null'],
    ['a list that is not an array', report({ discarded_events: { reason: 'x' } })],
    ['an entry that is not an object', report({ discarded_events: [7] })],
    ['a negative quantity', report({ discarded_events: [{ reason: 'x', category: 'error', quantity: -1 }] })],
    [
      'an absurd quantity',
      report({ discarded_events: [{ reason: 'x', category: 'error', quantity: MAX_REPORT_QUANTITY + 1 }] }),
    ],
    [
      'a fractional quantity',
      report({ discarded_events: [{ reason: 'x', category: 'error', quantity: 1.5 }] }),
    ],
    ['a quantity as text', report({ discarded_events: [{ reason: 'x', category: 'error', quantity: '3' }] })],
    [
      'a reason that is not a string',
      report({ discarded_events: [{ reason: 5, category: 'error', quantity: 1 }] }),
    ],
    ['a missing category', report({ discarded_events: [{ reason: 'x', quantity: 1 }] })],
    ['a timestamp of the wrong type', report({ timestamp: [], discarded_events: [] })],
    [
      'too many entries',
      report({
        discarded_events: Array.from({ length: 1_001 }, () => ({
          reason: 'x',
          category: 'error',
          quantity: 1,
        })),
      }),
    ],
  ])('counts a report with %s as one invalid client_report, none of its entries', (_, text) => {
    expect(clientReportOutcomes(text)).toEqual(invalid);
  });
});

describe('reasonName and categoryName', () => {
  it('keep the names of the protocol and call anything else "other"', () => {
    expect(reasonName('sample_rate')).toBe('sample_rate');
    expect(reasonName('callback_error')).toBe('callback_error');
    expect(categoryName('log_item')).toBe('log_item');
    for (const name of ['brand_new', 'a'.repeat(65), '', 'DROP TABLE', 'error:x', '__proto__']) {
      expect(reasonName(name)).toBe('other');
      expect(categoryName(name)).toBe('other');
    }
  });

  it('bound what one report can create: a thousand invented names are one count', () => {
    const invented = Array.from({ length: 1_000 }, (_, i) => ({
      reason: `reason_${i}`,
      category: `category_${i}`,
      quantity: 1,
    }));
    expect(clientReportOutcomes(report({ discarded_events: invented }))).toEqual([
      { outcome: 'client_discard', category: 'other', reason: 'other', quantity: 1_000 },
    ]);
  });
});

describe('categoryOfItemType', () => {
  it.each([
    ['transaction', 'transaction'],
    ['span', 'span'],
    ['log', 'log_item'],
    ['profile', 'profile'],
    ['replay_event', 'replay'],
    ['replay_recording', 'replay'],
    ['replay_video', 'replay'],
    ['check_in', 'monitor'],
    ['session', 'session'],
    ['sessions', 'session'],
    ['feedback', 'feedback'],
    ['user_report', 'feedback'],
    ['attachment', 'attachment'],
    ['statsd', 'metric'],
    ['metric_buckets', 'metric'],
    ['something_new', 'unknown'],
  ])('%s → %s', (type, category) => {
    expect(categoryOfItemType(type)).toBe(category);
  });
});

describe('envelopeOutcomes', () => {
  it('counts nothing for an envelope of one event', () => {
    expect(envelopeOutcomes(['event'], [])).toEqual([]);
  });

  it('counts each item type it does not handle as unsupported, its type the reason', () => {
    expect(
      envelopeOutcomes(
        [
          'event',
          'transaction',
          'replay_event',
          'replay_recording',
          'log',
          'x-new',
          'attachment',
          'profile',
        ],
        [],
      ),
    ).toEqual([
      { outcome: 'unsupported', category: 'transaction', reason: 'transaction', quantity: 1 },
      { outcome: 'unsupported', category: 'replay', reason: 'replay_event', quantity: 1 },
      { outcome: 'unsupported', category: 'replay', reason: 'replay_recording', quantity: 1 },
      { outcome: 'unsupported', category: 'log_item', reason: 'log', quantity: 1 },
      { outcome: 'unsupported', category: 'unknown', reason: 'other', quantity: 1 },
      { outcome: 'unsupported', category: 'profile', reason: 'profile', quantity: 1 },
    ]);
  });

  it('adds the client reports it carries, a report too large to keep as invalid', () => {
    const sent = report({ discarded_events: [{ reason: 'before_send', category: 'error', quantity: 2 }] });
    expect(
      envelopeOutcomes(['client_report', 'client_report', 'client_report'], [sent, undefined, 'oops']),
    ).toEqual([
      { outcome: 'client_discard', category: 'error', reason: 'before_send', quantity: 2 },
      { outcome: 'invalid', category: 'internal', reason: 'client_report', quantity: 2 },
    ]);
  });
});

describe('refusalOutcome', () => {
  it('counts a rate-limited request as rate_limited, of the category of its items (error when unread)', () => {
    expect(refusalOutcome(429, 'rate limit exceeded', undefined)).toEqual({
      outcome: 'rate_limited',
      category: 'error',
      reason: 'rate_limit',
      quantity: 1,
    });
  });

  it('counts what is too large as invalid too_large, of the refused item’s category', () => {
    expect(refusalOutcome(413, 'transaction item is larger than 1048576 bytes', 'transaction')).toEqual({
      outcome: 'invalid',
      category: 'transaction',
      reason: 'too_large',
      quantity: 1,
    });
  });

  it.each([
    ['envelope header is not valid JSON', 'invalid_json'],
    ['event payload is not a JSON object', 'invalid_json'],
    ['envelope is empty', 'empty'],
    ['request body is empty', 'empty'],
    ['event_id must be a UUID', 'invalid_event_id'],
    ['item length goes past the end of the envelope', 'invalid_length'],
    ['item header has no type', 'invalid_header'],
    ['envelope header line is too long', 'invalid_header'],
    ['request body is not valid gzip data', 'invalid_compression'],
    ['event payload is nested deeper than 128 levels', 'too_deep'],
    ['request was aborted', 'aborted'],
    ['something else entirely', 'malformed'],
  ])('counts a malformed envelope (%s) as invalid %s', (message, reason) => {
    expect(refusalOutcome(400, message, 'event')).toEqual({
      outcome: 'invalid',
      category: 'error',
      reason,
      quantity: 1,
    });
  });

  it('counts an encoding it cannot read as invalid, and nothing for other refusals', () => {
    expect(refusalOutcome(415, 'unsupported content encoding "zstd"', undefined)?.reason).toBe(
      'unsupported_encoding',
    );
    expect(refusalOutcome(503, 'rate limiter unavailable', undefined)).toBeUndefined();
    expect(refusalOutcome(401, 'unknown client key', undefined)).toBeUndefined();
  });
});
