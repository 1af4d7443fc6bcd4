/**
 * An uptime monitor's state after one more check: pure, so that thresholds are tested without a
 * network or a database. `pending` (no verdict yet) becomes `up` at the first success and `down` at
 * `failureThreshold` consecutive failures; `up` becomes `down` at `failureThreshold` consecutive
 * failures; `down` becomes `up` at `recoveryThreshold` consecutive successes.
 */
export type UptimeStatus = 'up' | 'down' | 'pending';

export interface UptimeState {
  status: UptimeStatus;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
}

export interface Thresholds {
  failureThreshold: number;
  recoveryThreshold: number;
}

/** `failed`: the failure threshold was reached (open the incident); `recovered`: the recovery one. */
export type UptimeTransition = 'failed' | 'recovered' | null;

export function applyCheck(
  state: UptimeState,
  ok: boolean,
  thresholds: Thresholds,
): { state: UptimeState; transition: UptimeTransition } {
  if (ok) {
    const successes = state.consecutiveSuccesses + 1;
    const next = { consecutiveFailures: 0, consecutiveSuccesses: successes };
    if (state.status === 'down' && successes >= thresholds.recoveryThreshold) {
      return { state: { status: 'up', ...next }, transition: 'recovered' };
    }
    const status = state.status === 'pending' ? 'up' : state.status;
    return { state: { status, ...next }, transition: null };
  }
  const failures = state.consecutiveFailures + 1;
  const next = { consecutiveFailures: failures, consecutiveSuccesses: 0 };
  if (state.status !== 'down' && failures >= thresholds.failureThreshold) {
    return { state: { status: 'down', ...next }, transition: 'failed' };
  }
  return { state: { status: state.status, ...next }, transition: null };
}

/**
 * Whether a certificate that expires at `expiresAt` should be warned about at `now`: within
 * `days` (0 turns the warning off), and not already warned about for this same expiry (a renewed
 * certificate has a new one).
 */
export function tlsWarningDue(
  expiresAt: Date | null,
  now: Date,
  days: number,
  warnedExpiry: Date | null,
): boolean {
  if (expiresAt === null || days <= 0) return false;
  if (expiresAt.getTime() - now.getTime() > days * 86_400_000) return false;
  return warnedExpiry === null || warnedExpiry.getTime() !== expiresAt.getTime();
}

/** The words of a certificate warning, as the monitor's issue shows them. */
export function tlsWarningDetail(expiresAt: Date, now: Date): string {
  const day = expiresAt.toISOString().slice(0, 10);
  const days = Math.floor((expiresAt.getTime() - now.getTime()) / 86_400_000);
  if (days < 0) return `TLS certificate expired on ${day}`;
  return `TLS certificate expires on ${day} (${days === 0 ? 'within a day' : days === 1 ? 'in 1 day' : `in ${days} days`})`;
}

/**
 * The slot a claimed check runs for, and the next one: the latest due time not after `now` (a
 * monitor that fell behind, while every worker was down, runs once, not once per missed interval),
 * and the one after it.
 */
export function dueSlots(
  nextDueAt: Date,
  now: Date,
  intervalSeconds: number,
): { dueAt: Date; nextDueAt: Date } {
  const interval = intervalSeconds * 1000;
  const behind = Math.max(0, Math.floor((now.getTime() - nextDueAt.getTime()) / interval));
  const dueAt = nextDueAt.getTime() + behind * interval;
  return { dueAt: new Date(dueAt), nextDueAt: new Date(dueAt + interval) };
}
