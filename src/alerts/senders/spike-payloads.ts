/**
 * What each channel type sends for a `spike_protection` alert (pure): the project, when spike
 * protection engaged, its limit and the events dropped so far, with a link to the project's quotas.
 */
import { alertTitle, SpikeNotification } from '../alert-notification';
import { AlertFormat, AlertMessage, escapeMrkdwn, MAX_SUBJECT_LENGTH, truncate } from './alert-message';

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

function spikeEmailSubject(notification: SpikeNotification): string {
  return truncate(`[${notification.project.name}] ${headline(notification)}`, MAX_SUBJECT_LENGTH);
}

/** A spike protection alert in the parts every alert message is made of. */
function spikeMessage(notification: SpikeNotification): AlertMessage {
  const { spike, project } = notification;
  const title = alertTitle(notification.alertType);
  return {
    intro: `${title} alert in ${project.name}.`,
    headline: headline(notification),
    facts: facts(notification),
    url: notification.url,
    linkLabel: 'Quotas and spike protection',
    chat: {
      summary: `${title} in ${project.name}: ${headline(notification)}`,
      lead: `${escapeMrkdwn(title)} in *${escapeMrkdwn(project.name)}*`,
      fields: [
        ['Limit', `${spike.limit_per_hour} events per hour`],
        ['Dropped so far', String(spike.dropped)],
      ],
    },
  };
}

export const spikeAlertFormat: AlertFormat<SpikeNotification> = {
  subject: spikeEmailSubject,
  message: spikeMessage,
  webhookFields: (notification) => ({ spike: notification.spike }),
};
