import { Injectable, Logger } from '@nestjs/common';
import { UptimeChecker } from './uptime-checker';
import { UptimeClock } from './uptime-clock';
import { AfterCommit, incidentRef, UptimeIncidents } from './uptime-incidents';
import { UptimeMonitorsRepository } from './uptime-monitors.repository';
import { afterFailures, afterSuccess } from '../incidents/monitor-thresholds';
import { tlsWarningDetail, tlsWarningDue } from './tls-expiry';

export type CheckOutcome = 'recorded' | 'duplicate' | 'missing';

/**
 * Runs one due check of one monitor and records it: the check's row and hour, the monitor's state,
 * and the incident a threshold crossing opens or resolves, in one transaction. A check already
 * recorded for the same due time (a job run again after its worker died) is not applied twice.
 */
@Injectable()
export class UptimeCheckRunner {
  private readonly logger = new Logger(UptimeCheckRunner.name);

  constructor(
    private readonly monitors: UptimeMonitorsRepository,
    private readonly checker: UptimeChecker,
    private readonly clock: UptimeClock,
    private readonly incidents: UptimeIncidents,
  ) {}

  async run(monitorId: number, dueAt: Date): Promise<CheckOutcome> {
    const monitor = await this.monitors.findById(monitorId);
    if (!monitor) return 'missing';
    if (await this.monitors.checkRecorded(monitorId, dueAt)) return 'duplicate';
    const checkedAt = this.clock.now();
    const result = await this.checker.check({
      url: monitor.url,
      method: monitor.method,
      headers: monitor.headers,
      body: monitor.body,
      expectedStatusMin: monitor.expected_status_min,
      expectedStatusMax: monitor.expected_status_max,
      bodyContains: monitor.body_contains,
      timeoutSeconds: monitor.timeout_seconds,
    });
    const afterCommit: AfterCommit[] = [];
    const outcome = await this.monitors.transaction(async (manager): Promise<CheckOutcome> => {
      const current = await this.monitors.lockForCheck(manager, monitorId);
      if (!current) return 'missing';
      const recorded = await this.monitors.recordCheck(manager, {
        monitorId,
        dueAt,
        checkedAt,
        ok: result.ok,
        responseMs: result.responseMs,
        statusCode: result.statusCode,
        error: result.error,
      });
      if (!recorded) return 'duplicate';
      // A check that finished after a later one (a slow answer, a job retried late) is kept in the
      // series but does not move the state back.
      if (current.last_due_at !== null && current.last_due_at.getTime() > dueAt.getTime()) return 'recorded';

      const before = {
        health: current.status,
        consecutiveFailures: current.consecutive_failures,
        consecutiveSuccesses: current.consecutive_successes,
      };
      const thresholds = {
        failureThreshold: current.failure_threshold,
        recoveryThreshold: current.recovery_threshold,
      };
      const step = result.ok ? afterSuccess(before, thresholds) : afterFailures(before, thresholds);
      const { state, effect } = step;
      const tlsExpiresAt = result.tlsExpiresAt ?? current.tls_expires_at;
      const warnTls = tlsWarningDue(
        tlsExpiresAt,
        checkedAt,
        current.tls_expiry_days,
        current.tls_warned_expiry,
      );
      await this.monitors.applyState(manager, monitorId, {
        status: state.health,
        consecutiveFailures: state.consecutiveFailures,
        consecutiveSuccesses: state.consecutiveSuccesses,
        dueAt,
        checkedAt,
        responseMs: result.responseMs,
        statusCode: result.statusCode,
        error: result.error,
        tlsExpiresAt: result.tlsExpiresAt,
        tlsWarnedExpiry: warnTls ? tlsExpiresAt : current.tls_warned_expiry,
      });
      // One line per change of state (never per check), with what decided it.
      const muted = current.muted ? ' (muted)' : '';
      if (effect === 'opened') {
        this.logger.warn(
          `uptime monitor ${monitorId} of project ${current.project_id} down${muted}: ${result.error}`,
        );
      } else if (effect === 'recovered') {
        this.logger.log(`uptime monitor ${monitorId} of project ${current.project_id} up again${muted}`);
      }
      if (warnTls) {
        this.logger.warn(
          `uptime monitor ${monitorId} of project ${current.project_id}: TLS certificate expires at ${tlsExpiresAt?.toISOString()}${muted}`,
        );
      }
      if (current.muted) return 'recorded';
      const ref = incidentRef(current);
      // Every failure counts: the one that opens the incident, and those while it is open.
      if (effect === 'opened' || effect === 'counted') {
        afterCommit.push(
          await this.incidents.monitorFailed(
            ref,
            {
              at: checkedAt,
              reason: 'down',
              detail: result.error ?? 'check failed',
              httpStatus: result.statusCode,
            },
            manager,
          ),
        );
      } else if (effect === 'recovered') {
        afterCommit.push(await this.incidents.monitorRecovered(ref, checkedAt, manager));
      }
      if (warnTls && tlsExpiresAt !== null) {
        afterCommit.push(
          await this.incidents.monitorFailed(
            ref,
            {
              at: checkedAt,
              reason: 'tls_expiring',
              detail: tlsWarningDetail(tlsExpiresAt, checkedAt),
            },
            manager,
          ),
        );
      }
      return 'recorded';
    });
    // The alerts of what committed; a crash before this leaves them to the outbox's sweep.
    for (const publish of afterCommit) await publish();
    return outcome;
  }
}
