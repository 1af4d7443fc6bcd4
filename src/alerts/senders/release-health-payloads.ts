/**
 * What each channel type sends for a `release_health` alert (pure): the release, the metric, its
 * value, the threshold, the window and the environments, with a link to the release's page. Issue
 * alerts keep their own formats (payloads.ts).
 */
import { alertTitle, ReleaseHealthNotification } from '../alert-notification';
import { ChatPayload, escapeHtml, escapeMrkdwn, MAX_SUBJECT_LENGTH, truncate } from './payloads';

export interface ReleaseHealthWebhookPayload {
  alert_type: 'release_health';
  test: false;
  project: ReleaseHealthNotification['project'];
  release: ReleaseHealthNotification['release'];
  url: string;
  triggered_at: string;
}

export function releaseHealthWebhookPayload(
  notification: ReleaseHealthNotification,
): ReleaseHealthWebhookPayload {
  return {
    alert_type: notification.alertType,
    test: false,
    project: notification.project,
    release: notification.release,
    url: notification.url,
    triggered_at: notification.triggeredAt,
  };
}

const METRIC_LABELS = { crash_free_sessions: 'Crash-free sessions', crash_free_users: 'Crash-free users' };

/** At most two decimals, without trailing zeros: 80, 97.5, 66.67. */
export function formatPercent(value: number): string {
  return `${Number(value.toFixed(2))}%`;
}

function environmentsText(notification: ReleaseHealthNotification): string {
  const { environments } = notification.release;
  return environments === null ? 'all environments' : environments.join(', ');
}

function windowText(hours: number): string {
  return hours === 1 ? 'the last hour' : `the last ${hours} hours`;
}

/** `shop@1.2.0: crash-free sessions 80% (below 95%) over the last 24 hours` */
function releaseHeadline(notification: ReleaseHealthNotification): string {
  const { release } = notification;
  return (
    `${release.version}: ${METRIC_LABELS[release.metric].toLowerCase()} ${formatPercent(release.value)} ` +
    `(below ${formatPercent(release.threshold)}) over ${windowText(release.window_hours)}`
  );
}

function facts(notification: ReleaseHealthNotification): Array<[string, string]> {
  const { release, project } = notification;
  return [
    ['Project', project.name],
    ['Release', release.version],
    [METRIC_LABELS[release.metric], formatPercent(release.value)],
    ['Threshold', formatPercent(release.threshold)],
    ['Window', windowText(release.window_hours)],
    ['Environments', environmentsText(notification)],
    ['Sessions', String(release.sessions)],
    ['Users', String(release.users)],
  ];
}

function intro(notification: ReleaseHealthNotification): string {
  return `${alertTitle(notification.alertType)} alert in ${notification.project.name}.`;
}

export function releaseHealthEmailSubject(notification: ReleaseHealthNotification): string {
  return truncate(`[${notification.project.name}] ${releaseHeadline(notification)}`, MAX_SUBJECT_LENGTH);
}

export function releaseHealthEmailText(notification: ReleaseHealthNotification): string {
  const lines = [intro(notification), ''];
  for (const [label, value] of facts(notification)) lines.push(`${label}: ${value}`);
  lines.push('', `View the release: ${notification.url}`, '', '-- ', 'Sent by error-tracker');
  return lines.join('\n');
}

export function releaseHealthEmailHtml(notification: ReleaseHealthNotification): string {
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
    `<p>${escapeHtml(intro(notification))}</p>`,
    `<h2 style="font-size:16px">${escapeHtml(releaseHeadline(notification))}</h2>`,
    `<table>\n${rows}\n</table>`,
    `<p><a href="${escapeHtml(notification.url)}">View the release</a></p>`,
    '<p style="color:#888">Sent by error-tracker</p>',
    '</body></html>',
  ].join('\n');
}

/** The same Slack-compatible shape as issue alerts: a complete `text` line, and richer `blocks`. */
export function releaseHealthChatPayload(notification: ReleaseHealthNotification): ChatPayload {
  const { release, project } = notification;
  const title = alertTitle(notification.alertType);
  const headline = truncate(releaseHeadline(notification), 150);
  return {
    text: `${title} in ${project.name}: ${headline} (${environmentsText(notification)}) ${notification.url}`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `*<${notification.url}|${escapeMrkdwn(headline)}>*\n${escapeMrkdwn(title)} in *${escapeMrkdwn(project.name)}*`,
        },
      },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Release*\n${escapeMrkdwn(release.version)}` },
          { type: 'mrkdwn', text: `*${METRIC_LABELS[release.metric]}*\n${formatPercent(release.value)}` },
          { type: 'mrkdwn', text: `*Threshold*\n${formatPercent(release.threshold)}` },
          { type: 'mrkdwn', text: `*Environments*\n${escapeMrkdwn(environmentsText(notification))}` },
        ],
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `${release.sessions} sessions · ${release.users} users over ${windowText(release.window_hours)}`,
          },
        ],
      },
    ],
  };
}
