import type { CronMonitorRow, MonitorEnvironmentRow } from './cron-monitors.repository';
import { failureStep, successStep, worstStatus } from './cron-state';

describe("a cron environment's state", () => {
  const monitor = { failure_issue_threshold: 2, recovery_threshold: 2, muted: false } as CronMonitorRow;
  const env = (fields: Partial<MonitorEnvironmentRow> = {}) =>
    ({
      consecutive_failures: 0,
      consecutive_successes: 0,
      incident_open: false,
      ...fields,
    }) as MonitorEnvironmentRow;

  it('opens once the failure threshold is reached, and only once', () => {
    expect(failureStep(env(), monitor, 'error').effect).toBeNull();
    expect(failureStep(env({ consecutive_failures: 1 }), monitor, 'missed')).toMatchObject({
      effect: 'opened',
      change: { incident_open: true, consecutive_failures: 2 },
    });
    // Open already: the failure counts on the incident, which stays open.
    const counted = failureStep(env({ consecutive_failures: 2, incident_open: true }), monitor, 'error');
    expect(counted).toMatchObject({
      effect: 'counted',
      change: { status: 'error', consecutive_failures: 3 },
    });
    expect(counted.change).not.toHaveProperty('incident_open');
    // Five misses at once: the second reached the threshold.
    expect(failureStep(env(), monitor, 'missed', 5)).toMatchObject({ effect: 'opened', fromIndex: 1 });
    // Muted: it keeps counting, and opens nothing.
    expect(failureStep(env({ consecutive_failures: 5 }), { ...monitor, muted: true }, 'error')).toMatchObject(
      {
        effect: null,
        change: { consecutive_failures: 6 },
      },
    );
  });

  it('recovers after the recovery threshold', () => {
    expect(successStep(env({ incident_open: true }), monitor).effect).toBeNull();
    expect(successStep(env({ incident_open: true, consecutive_successes: 1 }), monitor)).toMatchObject({
      effect: 'recovered',
      change: { incident_open: false },
    });
    expect(successStep(env({ consecutive_successes: 5 }), monitor).effect).toBeNull();
  });

  it('reports the worst status', () => {
    expect(worstStatus([])).toBe('pending');
    expect(worstStatus(['ok', 'missed', 'error'])).toBe('missed');
  });
});
