import { createHmac } from 'node:crypto';
import { alertTitle, AlertNotification } from '../alert-notification';

/** Pure builders of what each channel type sends; the senders only transport them. */

export const USER_AGENT = 'error-tracker';
export const MAX_SUBJECT_LENGTH = 200;

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

/** One line, at most `max` characters, ending in an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

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

export function emailText(notification: AlertNotification): string {
  const lines = [intro(notification), ''];
  for (const [label, value] of facts(notification)) lines.push(`${label}: ${value}`);
  lines.push('', `View the issue: ${notification.url}`, '', '-- ', 'Sent by error-tracker');
  return lines.join('\n');
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export function emailHtml(notification: AlertNotification): string {
  const rows = facts(notification)
    .map(
      ([label, value]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(label)}</th>` +
        `<td style="padding:2px 0">${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  const url = escapeHtml(notification.url);
  return [
    '<!doctype html>',
    '<html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(intro(notification))}</p>`,
    `<h2 style="font-size:16px">${escapeHtml(issueHeadline(notification))}</h2>`,
    `<table>\n${rows}\n</table>`,
    `<p><a href="${url}">View the issue</a></p>`,
    '<p style="color:#888">Sent by error-tracker</p>',
    '</body></html>',
  ].join('\n');
}

/** Slack mrkdwn treats `&`, `<` and `>` as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface ChatPayload {
  text: string;
  blocks: Array<Record<string, unknown>>;
}

/**
 * Slack-compatible incoming-webhook message. `text` is a complete line with a bare link: it is all
 * that Mattermost, Rocket.Chat and Discord's `/slack` endpoints need to render, and it is Slack's
 * notification fallback. `blocks` is the richer Slack layout.
 */
export function chatPayload(notification: AlertNotification): ChatPayload {
  const { issue, project } = notification;
  const title = alertTitle(notification.alertType);
  const headline = truncate(issueHeadline(notification), 150);
  const text = `${title} in ${project.name}: ${headline} ${notification.url}`;
  const lead =
    notification.alertType === 'test'
      ? '_This is a test notification: the channel is configured correctly._'
      : `${escapeMrkdwn(title)} in *${escapeMrkdwn(project.name)}*`;
  return {
    text,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `*<${notification.url}|${escapeMrkdwn(headline)}>*\n${lead}`,
        },
      },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Project*\n${escapeMrkdwn(project.name)}` },
          { type: 'mrkdwn', text: `*State*\n${escapeMrkdwn(issue.state)}` },
          { type: 'mrkdwn', text: `*Events*\n${issue.event_count}` },
          { type: 'mrkdwn', text: `*Level*\n${escapeMrkdwn(issue.level)}` },
        ],
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `First seen ${issue.first_seen} · Last seen ${issue.last_seen}`,
          },
        ],
      },
    ],
  };
}
