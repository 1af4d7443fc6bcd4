/**
 * What each channel type sends for a `release_health` alert (pure): the release, the metric, its
 * value, the threshold, the window and the environments, with a link to the release's page.
 */
import { alertTitle, ReleaseHealthNotification } from '../alert-notification';
import { AlertFormat, AlertMessage, escapeMrkdwn, MAX_SUBJECT_LENGTH, truncate } from './alert-message';

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

function releaseHealthEmailSubject(notification: ReleaseHealthNotification): string {
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

export const releaseHealthAlertFormat: AlertFormat<ReleaseHealthNotification> = {
  subject: releaseHealthEmailSubject,
  message: releaseHealthMessage,
  webhookFields: (notification) => ({ release: notification.release }),
};
