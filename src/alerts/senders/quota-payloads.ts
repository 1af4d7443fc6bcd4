/**
 * The format of a `quota_exhausted` alert (pure; payloads.ts builds each channel's body from it):
 * the project, which quota is used up, since and until when its events are refused, with a link to
 * the project's quotas.
 */
import { alertTitle, QuotaNotification } from '../alert-notification';
import { AlertFormat, AlertMessage, escapeMrkdwn, MAX_SUBJECT_LENGTH, truncate } from './alert-message';

const PERIODS = { daily_quota: 'day', monthly_quota: 'month' } as const;

/** `daily quota of 50000 events used up: events are refused until 2031-06-16T00:00:00.000Z` */
function headline(notification: QuotaNotification): string {
  const { quota } = notification;
  const name = quota.reason === 'daily_quota' ? 'daily' : 'monthly';
  return `${name} quota of ${quota.limit} events used up: events are refused until ${quota.until}`;
}

function facts(notification: QuotaNotification): Array<[string, string]> {
  const { quota, project } = notification;
  return [
    ['Project', project.name],
    ['Quota', `${quota.limit} events per UTC ${PERIODS[quota.reason]}`],
    ['Refused since', quota.since ?? 'unknown'],
    ['Accepted again at', quota.until],
  ];
}

function quotaEmailSubject(notification: QuotaNotification): string {
  return truncate(`[${notification.project.name}] ${headline(notification)}`, MAX_SUBJECT_LENGTH);
}

function quotaMessage(notification: QuotaNotification): AlertMessage {
  const { quota, project } = notification;
  const title = alertTitle(notification.alertType);
  return {
    intro: `${title} alert in ${project.name}. SDKs get 429 and drop events until the quota's period ends.`,
    headline: headline(notification),
    facts: facts(notification),
    url: notification.url,
    linkLabel: 'Quotas and spike protection',
    chat: {
      summary: `${title} in ${project.name}: ${headline(notification)}`,
      lead: `${escapeMrkdwn(title)} in *${escapeMrkdwn(project.name)}*`,
      fields: [
        ['Quota', `${quota.limit} events per UTC ${PERIODS[quota.reason]}`],
        ['Accepted again at', quota.until],
      ],
    },
  };
}

export const quotaAlertFormat: AlertFormat<QuotaNotification> = {
  subject: quotaEmailSubject,
  message: quotaMessage,
  webhookFields: (notification) => ({ quota: notification.quota }),
};
