/**
 * What each channel type sends for a `release_health` alert (pure): the release, the metric, its
 * value, the threshold, the window and the environments, with a link to the release's page. Issue
 * alerts keep their own formats (payloads.ts).
 */
import { alertTitle, ReleaseHealthNotification } from '../alert-notification';
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

/** A release health alert in the parts every alert message is made of. */
function releaseHealthMessage(notification: ReleaseHealthNotification): AlertMessage {
  const { release, project } = notification;
  const title = alertTitle(notification.alertType);
  const headline = releaseHeadline(notification);
  return {
    intro: intro(notification),
    headline,
    facts: facts(notification),
    url: notification.url,
    linkLabel: 'View the release',
    chat: {
      summary: `${title} in ${project.name}: ${truncate(headline, 150)} (${environmentsText(notification)})`,
      lead: `${escapeMrkdwn(title)} in *${escapeMrkdwn(project.name)}*`,
      fields: [
        ['Release', release.version],
        [METRIC_LABELS[release.metric], formatPercent(release.value)],
        ['Threshold', formatPercent(release.threshold)],
        ['Environments', environmentsText(notification)],
      ],
      context: `${release.sessions} sessions · ${release.users} users over ${windowText(release.window_hours)}`,
    },
  };
}

export function releaseHealthEmailText(notification: ReleaseHealthNotification): string {
  return messageEmailText(releaseHealthMessage(notification));
}

export function releaseHealthEmailHtml(notification: ReleaseHealthNotification): string {
  return messageEmailHtml(releaseHealthMessage(notification));
}

/** The same Slack-compatible shape as issue alerts: a complete `text` line, and richer `blocks`. */
export function releaseHealthChatPayload(notification: ReleaseHealthNotification): ChatPayload {
  return messageChatPayload(releaseHealthMessage(notification));
}
