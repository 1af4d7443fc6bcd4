import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { MonitorIncidentResult, MonitorIncidentsService } from '../incidents/monitor-incidents.service';
import { CONFIG_DEFAULTS, MonitorConfig, QueuedCheckIn } from './check-in-record';
import { CheckInRow, CheckInsRepository } from './check-ins.repository';
import { nextExpected } from './cron-schedule';
import { CronMonitorRow, CronMonitorsRepository, MonitorEnvironmentRow } from './cron-monitors.repository';
import { failureStep, marginMs, scheduleOf, StateStep, successStep } from './cron-state';

/** Deadlock and serialization failure: the transaction is tried again at once. */
const RETRIED_AT_ONCE = new Set(['40P01', '40001', '23505']);
const ATTEMPTS = 5;

/**
 * What became of a queued check-in. `dropped` carries the reason Sentry counts as an outcome
 * (category `monitor`): a monitor never configured, a check-in id already finished or of another
 * monitor, a monitor or an environment past the caps on what check-ins create (Sentry's
 * MONITOR_LIMIT_EXCEEDED and MONITOR_ENVIRONMENT_LIMIT_EXCEEDED). `ignored`: an in-progress
 * check-in after its own end (events out of order), as Sentry.
 */
export type CheckInDropReason =
  | 'invalid_monitor'
  | 'checkin_finished'
  | 'guid_mismatch'
  | 'monitor_limit_exceeded'
  | 'monitor_environment_limit_exceeded';

export type CheckInStoreResult =
  { result: 'stored' | 'updated' | 'ignored' } | { result: 'dropped'; reason: CheckInDropReason };

/**
 * Stores the check-ins ingest queued (the digest worker's `check_in` jobs), as Sentry's monitor
 * consumer does: a `monitor_config` creates or updates the monitor; a check-in of a slug without
 * a monitor is dropped; a check-in creates a monitor only while its project has fewer than
 * CRON_MONITORS_PER_PROJECT, and an environment only while its monitor has fewer than
 * CRON_ENVIRONMENTS_PER_MONITOR (each of which the clock checks every minute); a check-in id seen before updates that check-in (its status, duration,
 * runtime deadline) unless a client's ok or error closed it already, and a timed-out one only gets
 * its duration; no id (or the nil UUID) updates the latest in-progress one, else starts a new one.
 * The monitor's state in the environment is locked for the transaction, so that the clock and the
 * check-ins of one monitor take turns; the thresholds open and resolve the monitor's issue in the
 * same transaction.
 */
@Injectable()
export class CheckInStoreService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly monitors: CronMonitorsRepository,
    private readonly checkIns: CheckInsRepository,
    private readonly incidents: MonitorIncidentsService,
    private readonly config: AppConfig,
  ) {}

  async store(checkIn: QueuedCheckIn): Promise<CheckInStoreResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        const incidents: MonitorIncidentResult[] = [];
        const result = await this.dataSource.transaction((manager) =>
          this.storeIn(manager, checkIn, incidents),
        );
        // The alerts go out once the issue change is committed.
        for (const incident of incidents) await this.incidents.publish(incident);
        return result;
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (attempt >= ATTEMPTS || !RETRIED_AT_ONCE.has(code)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  }

  private async storeIn(
    manager: EntityManager,
    checkIn: QueuedCheckIn,
    incidents: MonitorIncidentResult[],
  ): Promise<CheckInStoreResult> {
    let monitor = await this.monitors.findBySlug(checkIn.projectId, checkIn.slug, manager);
    if (checkIn.monitorConfig) {
      if (
        !monitor &&
        !(await this.monitors.mayCreateMonitor(
          manager,
          checkIn.projectId,
          this.config.CRON_MONITORS_PER_PROJECT,
        ))
      ) {
        return { result: 'dropped', reason: 'monitor_limit_exceeded' };
      }
      monitor = await this.monitors.upsertFromConfig(
        manager,
        checkIn.projectId,
        checkIn.slug,
        settingsOf(checkIn.monitorConfig),
      );
    }
    if (!monitor) return { result: 'dropped', reason: 'invalid_monitor' };
    const environments = this.config.CRON_ENVIRONMENTS_PER_MONITOR;
    if (!(await this.monitors.mayUseEnvironment(manager, monitor.id, checkIn.environment, environments))) {
      return { result: 'dropped', reason: 'monitor_environment_limit_exceeded' };
    }
    const env = await this.monitors.lockEnvironment(manager, monitor.id, checkIn.environment);
    const receivedAt = new Date(checkIn.receivedAt);
    const existing = checkIn.checkInId
      ? await this.checkIns.findForUpdate(manager, checkIn.checkInId)
      : await this.checkIns.latestInProgress(manager, monitor.id, checkIn.environment);

    let row: CheckInRow;
    let result: 'stored' | 'updated';
    if (existing) {
      if (existing.monitor_id !== monitor.id || existing.environment !== checkIn.environment) {
        return { result: 'dropped', reason: 'guid_mismatch' };
      }
      const clientClosed = existing.status === 'ok' || existing.status === 'error';
      const durationOnly = existing.status === 'timeout' && checkIn.status !== 'in_progress';
      if ((clientClosed || existing.status === 'missed') && !durationOnly) {
        if (checkIn.status === 'in_progress') return { result: 'ignored' };
        return { result: 'dropped', reason: 'checkin_finished' };
      }
      const duration = checkIn.durationMs ?? Math.abs(receivedAt.getTime() - existing.created_at.getTime());
      if (durationOnly || existing.status === 'timeout') {
        // Sentry keeps a timed-out check-in timed out; a late end only tells how long it ran.
        await this.checkIns.update(manager, existing.id, { duration_ms: duration, updated_at: receivedAt });
        return { result: 'updated' };
      }
      row = {
        ...existing,
        status: checkIn.status,
        duration_ms: checkIn.status === 'in_progress' ? existing.duration_ms : duration,
        // An in-progress heartbeat moves the runtime deadline.
        timeout_at: checkIn.status === 'in_progress' ? runtimeDeadline(monitor, receivedAt) : null,
        updated_at: receivedAt,
      };
      await this.checkIns.update(manager, row.id, {
        status: row.status,
        duration_ms: row.duration_ms ?? undefined,
        timeout_at: row.timeout_at,
        updated_at: row.updated_at,
      });
      result = 'updated';
    } else {
      const createdAt = new Date(receivedAt.getTime() - (checkIn.durationMs ?? 0));
      row = {
        id: checkIn.checkInId ?? randomUUID(),
        monitor_id: monitor.id,
        environment: checkIn.environment,
        status: checkIn.status,
        duration_ms: checkIn.status === 'in_progress' ? null : checkIn.durationMs,
        release: checkIn.release,
        expected_at: env.next_expected_at,
        timeout_at: checkIn.status === 'in_progress' ? runtimeDeadline(monitor, createdAt) : null,
        created_at: createdAt,
        updated_at: receivedAt,
      };
      // Another monitor's check-in of this id: the environment lock did not cover it.
      if (!(await this.checkIns.insert(manager, row))) return { result: 'dropped', reason: 'guid_mismatch' };
      result = 'stored';
    }
    const incident = await this.applyToEnvironment(manager, monitor, env, row, receivedAt);
    if (incident) incidents.push(incident);
    return { result };
  }

  private async applyToEnvironment(
    manager: EntityManager,
    monitor: CronMonitorRow,
    env: MonitorEnvironmentRow,
    row: CheckInRow,
    receivedAt: Date,
  ): Promise<MonitorIncidentResult | undefined> {
    // Digest jobs run side by side, so check-ins can be stored out of order: the state follows the
    // one received last, and an older one arriving after it is kept as a row but changes nothing.
    if (env.last_check_in_at && receivedAt.getTime() < new Date(env.last_check_in_at).getTime())
      return undefined;
    const next = nextExpected(scheduleOf(monitor), monitor.timezone, receivedAt);
    const base = {
      last_check_in_at: receivedAt,
      next_expected_at: next,
      deadline_at: new Date(next.getTime() + marginMs(monitor)),
    };
    let step: StateStep | undefined;
    if (row.status === 'ok') step = successStep(env, monitor);
    else if (row.status === 'error') step = failureStep(env, monitor, 'error');
    await this.monitors.updateEnvironment(manager, env.id, {
      ...base,
      ...(step ? step.change : { status: 'in_progress' }),
    });
    const ref = {
      projectId: monitor.project_id,
      kind: 'cron' as const,
      monitorId: monitor.id,
      slug: monitor.slug,
      name: monitor.name,
      environment: env.environment,
    };
    // Every failure counts: the one that opens the incident, and those while it is open.
    if (step?.effect === 'opened' || step?.effect === 'counted') {
      return this.incidents.monitorFailed(
        ref,
        { at: receivedAt, reason: 'error', detail: `Check-in reported an error`, checkInId: row.id },
        manager,
      );
    }
    if (step?.effect === 'recovered') return this.incidents.monitorRecovered(ref, receivedAt, manager);
    return undefined;
  }
}

function runtimeDeadline(monitor: CronMonitorRow, from: Date): Date {
  return new Date(from.getTime() + monitor.max_runtime * 60_000);
}

function settingsOf(config: MonitorConfig) {
  const schedule = config.schedule;
  return {
    schedule_type: schedule.type,
    schedule_value: String(schedule.value),
    schedule_unit: schedule.type === 'interval' ? schedule.unit : null,
    timezone: config.timezone ?? CONFIG_DEFAULTS.timezone,
    checkin_margin: config.checkin_margin ?? CONFIG_DEFAULTS.checkin_margin,
    max_runtime: config.max_runtime ?? CONFIG_DEFAULTS.max_runtime,
    failure_issue_threshold: config.failure_issue_threshold ?? CONFIG_DEFAULTS.failure_issue_threshold,
    recovery_threshold: config.recovery_threshold ?? CONFIG_DEFAULTS.recovery_threshold,
  };
}
