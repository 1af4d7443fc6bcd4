import type { CronSchedule, IntervalUnit } from './cron-schedule';
import type {
  CronMonitorRow,
  EnvironmentStatus,
  MonitorEnvironmentChange,
  MonitorEnvironmentRow,
} from './cron-monitors.repository';

/**
 * How check-ins move a monitor's state in one environment, pure. Failures (error, missed, timed
 * out) count up until `failure_issue_threshold` opens an incident, once; successes count up until
 * `recovery_threshold` closes it. A muted monitor keeps counting but opens nothing.
 */

export type Crossing = 'failed' | 'recovered' | undefined;

export interface StateStep {
  change: MonitorEnvironmentChange;
  /** Set when this step reached a threshold: the caller opens or resolves the issue. */
  crossing: Crossing;
  /** For `failed`: which of the `count` failures (0-based) reached the threshold. */
  crossingIndex: number;
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
  const before = env.consecutive_failures;
  const failures = before + count;
  const change: MonitorEnvironmentChange = {
    status,
    consecutive_failures: failures,
    consecutive_successes: 0,
  };
  if (env.incident_open || monitor.muted || failures < monitor.failure_issue_threshold) {
    return { change, crossing: undefined, crossingIndex: -1 };
  }
  change.incident_open = true;
  return {
    change,
    crossing: 'failed',
    crossingIndex: Math.max(0, monitor.failure_issue_threshold - before - 1),
  };
}

export function successStep(env: MonitorEnvironmentRow, monitor: CronMonitorRow): StateStep {
  const successes = env.consecutive_successes + 1;
  const change: MonitorEnvironmentChange = {
    status: 'ok',
    consecutive_failures: 0,
    consecutive_successes: successes,
  };
  if (!env.incident_open || successes < monitor.recovery_threshold) {
    return { change, crossing: undefined, crossingIndex: -1 };
  }
  change.incident_open = false;
  return { change, crossing: 'recovered', crossingIndex: 0 };
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
