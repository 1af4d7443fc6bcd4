/**
 * Pure builders of what each channel type sends for any alert; the senders only transport them.
 * Each kind of alert has its format (issue-payloads.ts, release-health-payloads.ts,
 * spike-payloads.ts, quota-payloads.ts); the layouts they fill are alert-message.ts's, and the webhook body's frame
 * and headers are written here, once.
 */
import { createHmac } from 'node:crypto';
import {
  AnyAlertNotification,
  isQuotaNotification,
  isReleaseHealthNotification,
  isSpikeNotification,
} from '../alert-notification';
import {
  AlertFormat,
  AlertMessage,
  ChatPayload,
  messageChatPayload,
  messageEmailHtml,
  messageEmailText,
} from './alert-message';
import { issueAlertFormat } from './issue-payloads';
import { quotaAlertFormat } from './quota-payloads';
import { releaseHealthAlertFormat } from './release-health-payloads';
import { spikeAlertFormat } from './spike-payloads';

export const USER_AGENT = 'error-tracker';

/**
 * The webhook body: the alert's type, its project, its own field (`issue`, `release`, `spike` or `quota`),
 * the dashboard link and when it was triggered.
 */
export type WebhookPayload = {
  alert_type: AnyAlertNotification['alertType'];
  /** True only for the test endpoint's message. */
  test: boolean;
  project: AnyAlertNotification['project'];
  url: string;
  triggered_at: string;
} & Record<string, unknown>;

/** One notification with its kind's format. */
interface FormattedAlert {
  subject(): string;
  message(): AlertMessage;
  webhookFields(): Record<string, unknown>;
}

function withFormat<N>(format: AlertFormat<N>, notification: N): FormattedAlert {
  return {
    subject: () => format.subject(notification),
    message: () => format.message(notification),
    webhookFields: () => format.webhookFields(notification),
  };
}

function formatted(notification: AnyAlertNotification): FormattedAlert {
  if (isQuotaNotification(notification)) return withFormat(quotaAlertFormat, notification);
  if (isSpikeNotification(notification)) return withFormat(spikeAlertFormat, notification);
  if (isReleaseHealthNotification(notification)) return withFormat(releaseHealthAlertFormat, notification);
  return withFormat(issueAlertFormat, notification);
}

export function webhookPayload(notification: AnyAlertNotification): WebhookPayload {
  return {
    alert_type: notification.alertType,
    test: notification.alertType === 'test',
    project: notification.project,
    ...formatted(notification).webhookFields(),
    url: notification.url,
    triggered_at: notification.triggeredAt,
  };
}

export function emailSubject(notification: AnyAlertNotification): string {
  return formatted(notification).subject();
}

export function emailText(notification: AnyAlertNotification): string {
  return messageEmailText(formatted(notification).message());
}

export function emailHtml(notification: AnyAlertNotification): string {
  return messageEmailHtml(formatted(notification).message());
}

/** The e-mail's subject, plain text and HTML, from one message. */
export function emailContent(notification: AnyAlertNotification): {
  subject: string;
  text: string;
  html: string;
} {
  const alert = formatted(notification);
  const message = alert.message();
  return { subject: alert.subject(), text: messageEmailText(message), html: messageEmailHtml(message) };
}

/** The Slack-compatible chat message, the same shape for every alert (see messageChatPayload). */
export function chatPayload(notification: AnyAlertNotification): ChatPayload {
  return messageChatPayload(formatted(notification).message());
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
  notification: Pick<AnyAlertNotification, 'alertType'>,
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
