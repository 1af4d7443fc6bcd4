/**
 * User feedback as ingest reads it from the three forms the SDKs send, and hands to the digest
 * queue: the `feedback` item (an event whose `contexts.feedback` holds the message), the legacy
 * `user_report` item, and the crash-report dialog's form. Pure: no I/O.
 *
 * The limits are Sentry's (src/sentry/feedback, UserReport model): a message longer than 4096
 * characters (option `feedback.message.max-size`) is filtered, not truncated, and so is an empty
 * one; a user report's name is at most 128 characters and its e-mail 75.
 */
import { createHash } from 'node:crypto';
import { clean, truncate } from '../common/storable-text';

export const MAX_FEEDBACK_MESSAGE_LENGTH = 4096;
export const MAX_REPORT_NAME_LENGTH = 128;
export const MAX_REPORT_EMAIL_LENGTH = 75;
/** Feedback items are not refused for a long name, address or page: those are cut to these. */
const MAX_NAME_LENGTH = 256;
const MAX_EMAIL_LENGTH = 256;
const MAX_URL_LENGTH = 2048;
const MAX_ENVIRONMENT_LENGTH = 256;
const MAX_RELEASE_LENGTH = 250;
const MAX_SOURCE_LENGTH = 64;

export const FEEDBACK_SOURCES = {
  /** A `user_report` envelope item (older SDKs' captureUserFeedback). */
  userReport: 'user_report',
  /** The form of the crash-report dialog (showReportDialog). */
  reportDialog: 'crash_report_dialog',
  /** A `feedback` item whose context names no source. */
  feedbackItem: 'api',
} as const;

/** One feedback as queued for the digest (job `feedback`) and stored by the worker. */
export interface QueuedFeedback {
  projectId: number;
  /** The feedback's own id (lowercase, dashed UUID): its attachments carry the same one. */
  eventId: string;
  /** Epoch milliseconds when ingest accepted it. */
  receivedAt: number;
  /** The event the user was reacting to, when there was one. */
  associatedEventId?: string;
  name?: string;
  contactEmail?: string;
  message: string;
  url?: string;
  source: string;
  environment?: string;
  release?: string;
  /** A later copy of a user report for the same event replaces the earlier one, as in Sentry. */
  replaces?: boolean;
}

/** Why a feedback was not kept: the reason of its `invalid` outcome (category `feedback`). */
export type FeedbackRefusal =
  | 'invalid_json'
  | 'empty_message'
  | 'message_too_large'
  | 'name_too_large'
  | 'email_too_large'
  | 'invalid_event_id';

export type FeedbackReading = { feedback: QueuedFeedback } | { refused: FeedbackRefusal };

export class FeedbackRefusedError extends Error {
  constructor(readonly reason: FeedbackRefusal) {
    super(REFUSAL_MESSAGES[reason]);
  }
}

const REFUSAL_MESSAGES: Record<FeedbackRefusal, string> = {
  invalid_json: 'feedback is not a JSON object',
  empty_message: 'feedback has no message',
  message_too_large: `feedback message is longer than ${MAX_FEEDBACK_MESSAGE_LENGTH} characters`,
  name_too_large: `name is longer than ${MAX_REPORT_NAME_LENGTH} characters`,
  email_too_large: `email is longer than ${MAX_REPORT_EMAIL_LENGTH} characters`,
  invalid_event_id: 'event id is not a UUID',
};

export function refusalMessage(reason: FeedbackRefusal): string {
  return REFUSAL_MESSAGES[reason];
}

const HEX32 = /^[0-9a-f]{32}$/;

/** A UUID with or without dashes, in any case, as the lowercase dashed form; undefined otherwise. */
export function normalEventId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hex =
    value.length === 36 && /^[^-]{8}-[^-]{4}-[^-]{4}-[^-]{4}-[^-]{12}$/.test(value)
      ? value.replace(/-/g, '').toLowerCase()
      : value.toLowerCase();
  if (!HEX32.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of a user report (item or dialog), which has none of its own: derived from its event, so
 * that a resent report is the same row, and a second report for the same event replaces the first.
 */
export function userReportId(associatedEventId: string): string {
  const hex = createHash('sha256').update(`user_report\n${associatedEventId}`).digest('hex');
  // Version 8 (custom) and the RFC 4122 variant, so that it is a well-formed UUID.
  const version = `8${hex.slice(13, 16)}`;
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16) + hex.slice(17, 20);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${version}-${variant}-${hex.slice(20, 32)}`;
}

function text(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : truncate(trimmed, max);
}

function checkedMessage(value: unknown): { message: string } | { refused: FeedbackRefusal } {
  const message = typeof value === 'string' ? value.trim() : '';
  if (message === '') return { refused: 'empty_message' };
  if (message.length > MAX_FEEDBACK_MESSAGE_LENGTH) return { refused: 'message_too_large' };
  return { message: clean(message) };
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function parseObject(payload: string): Record<string, unknown> | undefined {
  try {
    return objectOf(JSON.parse(payload));
  } catch {
    return undefined;
  }
}

/**
 * A `feedback` item: an event payload (type `feedback`) whose `contexts.feedback` holds `message`,
 * `contact_email`, `name`, `url`, `source` and `associated_event_id` (@sentry/core captureFeedback).
 * `fallbackId`: the envelope header's event id, for a payload without its own.
 */
export function readFeedbackItem(
  payload: string,
  projectId: number,
  receivedAt: number,
  fallbackId: () => string,
): FeedbackReading {
  const event = parseObject(payload);
  if (!event) return { refused: 'invalid_json' };
  const context = objectOf(objectOf(event.contexts)?.feedback) ?? {};
  const checked = checkedMessage(context.message);
  if ('refused' in checked) return checked;
  const { message } = checked;
  const feedback: QueuedFeedback = {
    projectId,
    eventId: normalEventId(event.event_id) ?? fallbackId(),
    receivedAt,
    message,
    source: text(context.source, MAX_SOURCE_LENGTH) ?? FEEDBACK_SOURCES.feedbackItem,
  };
  const associated = normalEventId(context.associated_event_id);
  if (associated) feedback.associatedEventId = associated;
  assignDefined(feedback, {
    name: text(context.name, MAX_NAME_LENGTH),
    contactEmail: text(context.contact_email, MAX_EMAIL_LENGTH),
    url: text(context.url, MAX_URL_LENGTH),
    environment: text(event.environment, MAX_ENVIRONMENT_LENGTH),
    release: text(event.release, MAX_RELEASE_LENGTH),
  });
  return { feedback };
}

/** A `user_report` item: `{event_id, name, email, comments}` (Relay's UserReport). */
export function readUserReport(payload: string, projectId: number, receivedAt: number): FeedbackReading {
  const report = parseObject(payload);
  if (!report) return { refused: 'invalid_json' };
  return readReport(
    { eventId: report.event_id, name: report.name, email: report.email, comments: report.comments },
    projectId,
    receivedAt,
    FEEDBACK_SOURCES.userReport,
  );
}

/** A user report's fields, from the item or from the dialog's form, checked as Sentry checks them. */
export function readReport(
  fields: { eventId: unknown; name: unknown; email: unknown; comments: unknown },
  projectId: number,
  receivedAt: number,
  source: string,
): FeedbackReading {
  const checked = checkedMessage(fields.comments);
  if ('refused' in checked) return checked;
  const { message } = checked;
  const name = typeof fields.name === 'string' ? fields.name.trim() : '';
  if (name.length > MAX_REPORT_NAME_LENGTH) return { refused: 'name_too_large' };
  const email = typeof fields.email === 'string' ? fields.email.trim() : '';
  if (email.length > MAX_REPORT_EMAIL_LENGTH) return { refused: 'email_too_large' };
  const associatedEventId = normalEventId(fields.eventId);
  if (!associatedEventId) return { refused: 'invalid_event_id' };
  const feedback: QueuedFeedback = {
    projectId,
    eventId: userReportId(associatedEventId),
    receivedAt,
    associatedEventId,
    message,
    source,
    replaces: true,
  };
  assignDefined(feedback, {
    name: name ? clean(name) : undefined,
    contactEmail: email ? clean(email) : undefined,
  });
  return { feedback };
}

function assignDefined(target: QueuedFeedback, fields: Partial<QueuedFeedback>): void {
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (target as unknown as Record<string, unknown>)[key] = value;
  }
}
