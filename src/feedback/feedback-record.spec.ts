import {
  MAX_FEEDBACK_MESSAGE_LENGTH,
  normalEventId,
  readFeedbackItem,
  readReport,
  readUserReport,
  userReportId,
} from './feedback-record';

const ID = '0123456789abcdef0123456789abcdef';
const DASHED = '01234567-89ab-cdef-0123-456789abcdef';
const fallback = () => 'ffffffff-ffff-4fff-8fff-ffffffffffff';

describe('readFeedbackItem', () => {
  const item = (feedback: unknown, extra: object = {}) =>
    JSON.stringify({ event_id: ID, type: 'feedback', contexts: { feedback }, ...extra });

  it('reads the feedback context of captureFeedback', () => {
    const reading = readFeedbackItem(
      item(
        {
          message: ' hi ',
          name: 'A',
          contact_email: 'a@b.c',
          url: 'https://x',
          source: 'widget',
          associated_event_id: ID.toUpperCase(),
        },
        { environment: 'prod', release: '1.0' },
      ),
      7,
      1000,
      fallback,
    );
    expect(reading).toEqual({
      feedback: {
        projectId: 7,
        eventId: DASHED,
        receivedAt: 1000,
        message: 'hi',
        name: 'A',
        contactEmail: 'a@b.c',
        url: 'https://x',
        source: 'widget',
        associatedEventId: DASHED,
        environment: 'prod',
        release: '1.0',
      },
    });
  });

  it('refuses what Sentry filters, and names why', () => {
    expect(readFeedbackItem('[1]', 1, 0, fallback)).toEqual({ refused: 'invalid_json' });
    expect(readFeedbackItem(item({ message: '  ' }), 1, 0, fallback)).toEqual({ refused: 'empty_message' });
    expect(readFeedbackItem(item({}), 1, 0, fallback)).toEqual({ refused: 'empty_message' });
    expect(readFeedbackItem(JSON.stringify({ contexts: 'x' }), 1, 0, fallback)).toEqual({
      refused: 'empty_message',
    });
    expect(
      readFeedbackItem(item({ message: 'x'.repeat(MAX_FEEDBACK_MESSAGE_LENGTH + 1) }), 1, 0, fallback),
    ).toEqual({
      refused: 'message_too_large',
    });
  });

  it('keeps a message of exactly the limit, and a message that reads like a refusal', () => {
    const long = readFeedbackItem(item({ message: 'x'.repeat(MAX_FEEDBACK_MESSAGE_LENGTH) }), 1, 0, fallback);
    expect('feedback' in long && long.feedback.message).toHaveLength(MAX_FEEDBACK_MESSAGE_LENGTH);
    expect(readFeedbackItem(item({ message: 'empty_message' }), 1, 0, fallback)).toMatchObject({
      feedback: { message: 'empty_message' },
    });
  });

  it('uses the fallback id and ignores an associated id that is not one', () => {
    const reading = readFeedbackItem(
      JSON.stringify({ event_id: 'nope', contexts: { feedback: { message: 'm', associated_event_id: 12 } } }),
      1,
      0,
      fallback,
    );
    expect(reading).toEqual({
      feedback: { projectId: 1, eventId: fallback(), receivedAt: 0, message: 'm', source: 'api' },
    });
  });
});

describe('user reports', () => {
  it('reads a user_report item with the id derived from its event', () => {
    const reading = readUserReport(
      JSON.stringify({ event_id: ID, name: 'N', email: 'e@x', comments: 'c' }),
      2,
      5,
    );
    expect(reading).toEqual({
      feedback: {
        projectId: 2,
        eventId: userReportId(DASHED),
        receivedAt: 5,
        associatedEventId: DASHED,
        name: 'N',
        contactEmail: 'e@x',
        message: 'c',
        source: 'user_report',
        replaces: true,
      },
    });
    expect(normalEventId(userReportId(DASHED))).toBe(userReportId(DASHED));
    expect(userReportId(DASHED)).not.toBe(userReportId(fallback()));
  });

  it("applies Sentry's limits of the UserReport model", () => {
    const base = { eventId: ID, name: 'n', email: 'e', comments: 'c' };
    expect(readReport({ ...base, comments: undefined }, 1, 0, 's')).toEqual({ refused: 'empty_message' });
    expect(readReport({ ...base, name: 'n'.repeat(129) }, 1, 0, 's')).toEqual({ refused: 'name_too_large' });
    expect(readReport({ ...base, email: 'e'.repeat(76) }, 1, 0, 's')).toEqual({ refused: 'email_too_large' });
    expect(readReport({ ...base, eventId: 'x' }, 1, 0, 's')).toEqual({ refused: 'invalid_event_id' });
  });
});

describe('normalEventId', () => {
  it('accepts 32 hex digits or a dashed UUID, in any case', () => {
    expect(normalEventId(ID)).toBe(DASHED);
    expect(normalEventId(DASHED.toUpperCase())).toBe(DASHED);
    expect(normalEventId('0123456789abcdef-0123456789abcdef')).toBeUndefined();
    expect(normalEventId('g'.repeat(32))).toBeUndefined();
    expect(normalEventId(undefined)).toBeUndefined();
  });
});
