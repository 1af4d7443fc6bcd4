/**
 * What alert rules can react to: the issue lifecycle transitions, new feedback on an issue,
 * `release_health`, a release's crash-free rate falling below a threshold (evaluated on a schedule,
 * see src/alerts/release-health-alerts.service.ts), a cron or uptime monitor's issue opening
 * (`monitor_failed`) or resolving as the monitor recovers (`monitor_recovered`, src/monitors), and
 * `spike_protection`, a project's spike protection engaging (see src/alerts/spike-alerts.service.ts).
 */
export const ALERT_TYPES = [
  'new_issue',
  'regression',
  'unmute',
  'new_feedback',
  'release_health',
  'monitor_failed',
  'monitor_recovered',
  'spike_protection',
  'quota_exhausted',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** An issue lifecycle transition that alert rules of the same `alert_type` react to. */
export interface AlertTrigger {
  alertType: AlertType;
  projectId: number;
  issueId: number;
  /** ISO timestamp of the transition; with the type and issue it identifies the trigger. */
  occurredAt: string;
}

export enum AlertJobName {
  /** Match rules for a trigger, apply cooldowns, create history rows and delivery jobs. */
  Trigger = 'trigger',
  /** Deliver one notification (one history row) through one channel. */
  Deliver = 'deliver',
  /** Publish what a crash or an outage left in the outbox (scheduled, see AlertsProcessor). */
  SweepOutbox = 'sweep-outbox',
  /** Compare every release's crash-free rate with the `release_health` rules (scheduled, once a minute). */
  EvaluateReleaseHealth = 'evaluate-release-health',
  /** Refresh the spike protection limits and alert about spikes that engaged (scheduled, once a minute). */
  CheckSpikes = 'check-spikes',
}

/** Separated by `-`: BullMQ refuses custom job ids containing `:` ("Custom Id cannot contain :"). */
export function alertTriggerJobId(trigger: AlertTrigger): string {
  return `trigger-${trigger.alertType}-${trigger.issueId}-${Date.parse(trigger.occurredAt)}`;
}
