import type { CronSchedule, IntervalUnit } from './cron-schedule';
import type {
  CronMonitorRow,
  EnvironmentStatus,
  MonitorEnvironmentChange,
  MonitorEnvironmentRow,
} from './cron-monitors.repository';
import {
  afterFailures,
  afterSuccess,
  type ThresholdEffect,
  type ThresholdState,
  type Thresholds,
  type ThresholdStep,
} from '../incidents/monitor-thresholds';

/**
 * How check-ins move a cron monitor's state in one environment: the environment's row read as the
 * monitors' threshold state (`incident_open` is "down"), one step of the shared state machine
 * (monitor-thresholds.ts), and the row's change. A muted monitor keeps counting but opens nothing.
 */

export interface StateStep {
  change: MonitorEnvironmentChange;
  /** What the step does to the environment's incident (see ThresholdEffect). */
  effect: ThresholdEffect;
  /** Of a run of failures: which one (0-based) the incident dates from; -1 otherwise. */
  fromIndex: number;
}

export function scheduleOf(monitor: CronMonitorRow): CronSchedule {
  return monitor.schedule_type === 'crontab'
    ? { type: 'crontab', value: monitor.schedule_value }
    : {
        type: 'interval',
        value: Number(monitor.schedule_value),
        unit: monitor.schedule_unit as IntervalUnit,
      };
}

/** A margin of 0 is Sentry's default of one minute. */
export function marginMs(monitor: CronMonitorRow): number {
  return Math.max(1, monitor.checkin_margin) * 60_000;
}

export function failureStep(
  env: MonitorEnvironmentRow,
  monitor: CronMonitorRow,
  status: Extract<EnvironmentStatus, 'error' | 'missed' | 'timeout'>,
  count = 1,
): StateStep {
  return toStep(afterFailures(stateOf(env), thresholdsOf(monitor), count), env, status);
}

export function successStep(env: MonitorEnvironmentRow, monitor: CronMonitorRow): StateStep {
  return toStep(afterSuccess(stateOf(env), thresholdsOf(monitor)), env, 'ok');
}

function stateOf(env: MonitorEnvironmentRow): ThresholdState {
  return {
    health: env.incident_open ? 'down' : 'up',
    consecutiveFailures: env.consecutive_failures,
    consecutiveSuccesses: env.consecutive_successes,
  };
}

function thresholdsOf(monitor: CronMonitorRow): Thresholds {
  return {
    failureThreshold: monitor.failure_issue_threshold,
    recoveryThreshold: monitor.recovery_threshold,
    holdUp: monitor.muted,
  };
}

function toStep(step: ThresholdStep, env: MonitorEnvironmentRow, status: EnvironmentStatus): StateStep {
  const change: MonitorEnvironmentChange = {
    status,
    consecutive_failures: step.state.consecutiveFailures,
    consecutive_successes: step.state.consecutiveSuccesses,
  };
  const incidentOpen = step.state.health === 'down';
  if (incidentOpen !== env.incident_open) change.incident_open = incidentOpen;
  return { change, effect: step.effect, fromIndex: step.fromIndex };
}

const STATUS_RANK: Record<EnvironmentStatus, number> = {
  timeout: 5,
  missed: 4,
  error: 3,
  in_progress: 2,
  ok: 1,
  pending: 0,
};

/** A monitor's status over its environments: the worst of them; `pending` before any check-in. */
export function worstStatus(statuses: EnvironmentStatus[]): EnvironmentStatus {
  let worst: EnvironmentStatus = 'pending';
  for (const status of statuses) if (STATUS_RANK[status] > STATUS_RANK[worst]) worst = status;
  return worst;
}
