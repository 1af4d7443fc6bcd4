/** The jobs of the `uptime` queue. */
export enum UptimeJobName {
  /** Every UPTIME_TICK_MS, once for the installation: claim the due checks and queue them. */
  Tick = 'tick',
  Check = 'check',
}

export interface UptimeCheckJob {
  monitorId: number;
  /** ISO time the check was due: with the monitor, the check's identity. */
  dueAt: string;
}

/**
 * One job id per monitor and due time: a tick that queued a check and died before committing its
 * claim queues the same id again, which BullMQ refuses as a duplicate while the first is kept.
 */
export function checkJobId(monitorId: number, dueAt: Date): string {
  return `check_${monitorId}_${dueAt.getTime()}`;
}

/**
 * Checks go after ticks: BullMQ takes jobs without a priority before prioritized ones, so a tick
 * is never stuck behind a long queue of checks (which would delay the next checks' claims).
 */
export const CHECK_PRIORITY = 1;
