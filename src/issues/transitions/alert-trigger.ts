/** The issue lifecycle transitions alert rules can react to, and new feedback on an issue. */
export const ALERT_TYPES = ['new_issue', 'regression', 'unmute', 'new_feedback'] as const;
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
}

/** Separated by `-`: BullMQ refuses custom job ids containing `:` ("Custom Id cannot contain :"). */
export function alertTriggerJobId(trigger: AlertTrigger): string {
  return `trigger-${trigger.alertType}-${trigger.issueId}-${Date.parse(trigger.occurredAt)}`;
}
