/**
 * What each channel type sends for a `spike_protection` alert (pure): the project, when spike
 * protection engaged, its limit and the events dropped so far, with a link to the project's quotas.
 */
import { alertTitle, SpikeNotification } from '../alert-notification';
import { ChatPayload, escapeHtml, escapeMrkdwn, MAX_SUBJECT_LENGTH, truncate } from './payloads';

export interface SpikeWebhookPayload {
  alert_type: 'spike_protection';
  test: false;
  project: SpikeNotification['project'];
  spike: SpikeNotification['spike'];
  url: string;
  triggered_at: string;
}

export function spikeWebhookPayload(notification: SpikeNotification): SpikeWebhookPayload {
  return {
    alert_type: notification.alertType,
    test: false,
    project: notification.project,
    spike: notification.spike,
    url: notification.url,
    triggered_at: notification.triggeredAt,
  };
}

/** `Spike protection engaged: more than 1000 events this hour, events are being dropped` */
function headline(notification: SpikeNotification): string {
  return (
    `spike protection engaged: more than ${notification.spike.limit_per_hour} events in an hour, ` +
    'further events are dropped until the hour ends'
  );
}

function facts(notification: SpikeNotification): Array<[string, string]> {
  const { spike, project } = notification;
  return [
    ['Project', project.name],
    ['Engaged at', spike.started_at],
    ['Limit', `${spike.limit_per_hour} events per hour`],
    ['Dropped so far', String(spike.dropped)],
  ];
}

export function spikeEmailSubject(notification: SpikeNotification): string {
  return truncate(`[${notification.project.name}] ${headline(notification)}`, MAX_SUBJECT_LENGTH);
}

export function spikeEmailText(notification: SpikeNotification): string {
  const lines = [`${alertTitle(notification.alertType)} alert in ${notification.project.name}.`, ''];
  for (const [label, value] of facts(notification)) lines.push(`${label}: ${value}`);
  lines.push('', `Quotas and spike protection: ${notification.url}`, '', '-- ', 'Sent by error-tracker');
  return lines.join('\n');
}

export function spikeEmailHtml(notification: SpikeNotification): string {
  const rows = facts(notification)
    .map(
      ([label, value]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(label)}</th>` +
        `<td style="padding:2px 0">${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  return [
    '<!doctype html>',
    '<html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(`${alertTitle(notification.alertType)} alert in ${notification.project.name}.`)}</p>`,
    `<h2 style="font-size:16px">${escapeHtml(headline(notification))}</h2>`,
    `<table>\n${rows}\n</table>`,
    `<p><a href="${escapeHtml(notification.url)}">Quotas and spike protection</a></p>`,
    '<p style="color:#888">Sent by error-tracker</p>',
    '</body></html>',
  ].join('\n');
}

/** The same Slack-compatible shape as the other alerts: a complete `text` line, and `blocks`. */
export function spikeChatPayload(notification: SpikeNotification): ChatPayload {
  const { spike, project } = notification;
  const title = alertTitle(notification.alertType);
  return {
    text: `${title} in ${project.name}: ${headline(notification)} ${notification.url}`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `*<${notification.url}|${escapeMrkdwn(headline(notification))}>*\n${escapeMrkdwn(title)} in *${escapeMrkdwn(project.name)}*`,
        },
      },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Limit*\n${spike.limit_per_hour} events per hour` },
          { type: 'mrkdwn', text: `*Dropped so far*\n${spike.dropped}` },
        ],
      },
    ],
  };
}
