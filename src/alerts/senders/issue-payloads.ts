/**
 * What each channel type sends for an issue's alert (pure), and for the channel test's message,
 * which has an issue's shape: the issue as the API shows it, with a link to its page.
 */
import { alertTitle, AlertNotification } from '../alert-notification';
import { AlertFormat, AlertMessage, escapeMrkdwn, MAX_SUBJECT_LENGTH, truncate } from './alert-message';

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
function issueEmailSubject(notification: AlertNotification): string {
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

export const issueAlertFormat: AlertFormat<AlertNotification> = {
  subject: issueEmailSubject,
  message: issueMessage,
  webhookFields: (notification) => ({ issue: notification.issue }),
};
