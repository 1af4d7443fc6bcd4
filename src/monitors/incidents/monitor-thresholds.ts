/**
 * The one state machine of monitors, pure: N consecutive failures and the monitor is down (its
 * incident opens), M consecutive successes and it is up again (the incident is resolved). Cron
 * check-ins and uptime checks are its two sources; each keeps its counts in its own rows and asks
 * this what one more result, or a run of failures, does to them.
 *
 * `pending` (no verdict yet) becomes `up` at the first success and `down` at the failure threshold;
 * `up` becomes `down` at the failure threshold; `down` becomes `up` at the recovery threshold.
 */
export type MonitorHealth = 'up' | 'down' | 'pending';

export interface ThresholdState {
  health: MonitorHealth;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
}

export interface Thresholds {
  failureThreshold: number;
  recoveryThreshold: number;
  /** A held monitor (a muted cron monitor) keeps counting but never goes down. */
  holdUp?: boolean;
}

/**
 * What a step does to the monitor's incident: `opened` (the failure threshold was reached),
 * `counted` (failures while it was down already: they count on the open incident), `recovered`
 * (the recovery threshold was reached), or nothing.
 */
export type ThresholdEffect = 'opened' | 'counted' | 'recovered' | null;

export interface ThresholdStep {
  state: ThresholdState;
  effect: ThresholdEffect;
  /**
   * Of a run of failures: which one (0-based) the incident dates from, the one that reached the
   * threshold (`opened`) or the first (`counted`); -1 otherwise.
   */
  fromIndex: number;
}

/** `count` more failures in a row (the runs a cron clock found missed at once, or one check). */
export function afterFailures(state: ThresholdState, thresholds: Thresholds, count = 1): ThresholdStep {
  const before = state.consecutiveFailures;
  const failures = before + count;
  const next = { consecutiveFailures: failures, consecutiveSuccesses: 0 };
  if (state.health === 'down') return { state: { health: 'down', ...next }, effect: 'counted', fromIndex: 0 };
  if (thresholds.holdUp || failures < thresholds.failureThreshold) {
    return { state: { health: state.health, ...next }, effect: null, fromIndex: -1 };
  }
  return {
    state: { health: 'down', ...next },
    effect: 'opened',
    fromIndex: Math.max(0, thresholds.failureThreshold - before - 1),
  };
}

/** One more success. */
export function afterSuccess(state: ThresholdState, thresholds: Thresholds): ThresholdStep {
  const successes = state.consecutiveSuccesses + 1;
  const next = { consecutiveFailures: 0, consecutiveSuccesses: successes };
  if (state.health === 'down' && successes >= thresholds.recoveryThreshold) {
    return { state: { health: 'up', ...next }, effect: 'recovered', fromIndex: -1 };
  }
  const health = state.health === 'pending' ? 'up' : state.health;
  return { state: { health, ...next }, effect: null, fromIndex: -1 };
}
