import { createHmac } from 'node:crypto';
import { alertTitle, AlertNotification } from '../alert-notification';
import {
  AlertMessage,
  ChatPayload,
  escapeMrkdwn,
  MAX_SUBJECT_LENGTH,
  messageChatPayload,
  messageEmailHtml,
  messageEmailText,
  truncate,
} from './alert-message';

/** Pure builders of what each channel type sends; the senders only transport them. */

export const USER_AGENT = 'error-tracker';

export interface WebhookPayload {
  alert_type: AlertNotification['alertType'];
  /** True only for the test endpoint's message. */
  test: boolean;
  project: AlertNotification['project'];
  issue: AlertNotification['issue'];
  url: string;
  triggered_at: string;
}

export function webhookPayload(notification: AlertNotification): WebhookPayload {
  return {
    alert_type: notification.alertType,
    test: notification.alertType === 'test',
    project: notification.project,
    issue: notification.issue,
    url: notification.url,
    triggered_at: notification.triggeredAt,
  };
}

/**
 * `sha256=<hex>` where hex is HMAC-SHA256 keyed with the channel secret over the exact bytes of the
 * request body (UTF-8 JSON). Nothing else is signed: the body carries `triggered_at` and the
 * `X-Idempotency-Key` header identifies the notification, so receivers can reject stale or repeated ones.
 */
export function webhookSignature(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;
}

export function webhookHeaders(
  notification: Pick<AlertNotification, 'alertType'>,
  rawBody: string,
  idempotencyKey: string,
  secret: string | undefined,
  extra: Record<string, string> | undefined,
): Record<string, string> {
  // Extra headers first: the protocol headers below always win over a channel's configuration.
  const headers: Record<string, string> = { ...(extra ?? {}) };
  for (const name of Object.keys(headers)) {
    if (PROTOCOL_HEADERS.has(name.toLowerCase())) delete headers[name];
  }
  headers['Content-Type'] = 'application/json';
  headers['User-Agent'] = USER_AGENT;
  headers['X-Idempotency-Key'] = idempotencyKey;
  headers['X-Alert-Type'] = notification.alertType;
  if (secret) headers['X-Signature-256'] = webhookSignature(secret, rawBody);
  return headers;
}

const PROTOCOL_HEADERS = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'user-agent',
  'x-idempotency-key',
  'x-alert-type',
  'x-signature-256',
]);

/**
 * `SHORT-1: TypeError: message`. A monitor's issue adds its culprit, the latest failure in words
 * (`nightly-backup missed a check-in: …`), since the reason is what its alert is about.
 */
function issueHeadline(notification: AlertNotification): string {
  const { issue } = notification;
  const headline = `${issue.short_id}: ${issue.type}: ${issue.message}`;
  return issue.kind !== 'error' && issue.culprit ? `${headline} — ${issue.culprit}` : headline;
}

/** `[<project name>] <short_id>: <type>: <message>`, cut to 200 characters. */
export function emailSubject(notification: AlertNotification): string {
  const prefix = notification.alertType === 'test' ? '[Test] ' : '';
  return truncate(
    `${prefix}[${notification.project.name}] ${issueHeadline(notification)}`,
    MAX_SUBJECT_LENGTH,
  );
}

function facts(notification: AlertNotification): Array<[string, string]> {
  const { issue, project } = notification;
  return [
    ['Project', project.name],
    ['Issue', issue.short_id],
    ['Type', issue.type],
    ['Message', issue.message],
    ['Culprit', issue.culprit || '-'],
    ['Level', issue.level],
    ['State', issue.state],
    ['Events', String(issue.event_count)],
    ['First seen', issue.first_seen],
    ['Last seen', issue.last_seen],
  ];
}

function intro(notification: AlertNotification): string {
  return notification.alertType === 'test'
    ? 'This is a test notification: this channel is configured correctly. It is not about a real issue.'
    : `${alertTitle(notification.alertType)} in ${notification.project.name}.`;
}

/** An issue alert in the parts every alert message is made of. */
function issueMessage(notification: AlertNotification): AlertMessage {
  const { issue, project } = notification;
  const title = alertTitle(notification.alertType);
  const headline = issueHeadline(notification);
  return {
    intro: intro(notification),
    headline,
    facts: facts(notification),
    url: notification.url,
    linkLabel: 'View the issue',
    chat: {
      summary: `${title} in ${project.name}: ${truncate(headline, 150)}`,
      lead:
        notification.alertType === 'test'
          ? '_This is a test notification: the channel is configured correctly._'
          : `${escapeMrkdwn(title)} in *${escapeMrkdwn(project.name)}*`,
      fields: [
        ['Project', project.name],
        ['State', issue.state],
        ['Events', String(issue.event_count)],
        ['Level', issue.level],
      ],
      context: `First seen ${issue.first_seen} · Last seen ${issue.last_seen}`,
    },
  };
}

export function emailText(notification: AlertNotification): string {
  return messageEmailText(issueMessage(notification));
}

export function emailHtml(notification: AlertNotification): string {
  return messageEmailHtml(issueMessage(notification));
}

export function chatPayload(notification: AlertNotification): ChatPayload {
  return messageChatPayload(issueMessage(notification));
}
