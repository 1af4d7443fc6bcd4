import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RepeatedLog } from '../../common/repeated-log';
import { QueueMonitor } from '../../jobs/queue-monitor';
import { MonitorIncidentResult, MonitorIncidentsService } from '../incidents/monitor-incidents.service';
import type { MonitorFailure, MonitorRef } from '../incidents/monitor-ref';
import { CheckInsRepository } from './check-ins.repository';
import { CronClock } from './cron-clock';
import { expectedBetween, nextExpected, timeInWords } from './cron-schedule';
import { CronMonitorRow, CronMonitorsRepository } from './cron-monitors.repository';
import { failureStep, marginMs, scheduleOf } from './cron-state';

/** Due environments and timed-out check-ins are read this many at a time. */
const BATCH = 500;
/** Due environments marked in one transaction: a few statements for all of them. */
const MISSED_PER_TRANSACTION = 100;
/** Transactions a tick runs side by side (the pool has 20 connections). */
const PARALLEL = 4;
/**
 * After an outage, at most this many missed runs of one monitor and environment are recorded, the
 * earliest first; the rest of the gap is skipped. The incident opens once whatever the count.
 */
export const MAX_MISSES_PER_TICK = 60;
/** A digest behind by this much is logged (once a minute) when it holds the clock back. */
const LAG_LOGGED_MS = 60_000;

export interface TickResult {
  missed: number;
  timedOut: number;
  environments: number;
}

/**
 * The once-a-minute clock of cron monitors (run by CronClockProcessor, one job per minute for the
 * whole installation). Marks as timed out the in-progress check-ins past `max_runtime`, then, for
 * each environment whose deadline (next expected time plus the margin) has passed without a
 * check-in, records the runs missed since, earliest first, and moves the next expected time past
 * now. Every change re-reads its row under a lock in its own transaction, so that a tick run twice,
 * or two ticks at once, record each miss and each timeout once.
 */
@Injectable()
export class CronClockService {
  private readonly logger = new Logger('CronClock');
  private readonly lagLog = new RepeatedLog(this.logger, 60_000);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly monitors: CronMonitorsRepository,
    private readonly checkIns: CheckInsRepository,
    private readonly clock: CronClock,
    private readonly incidents: MonitorIncidentsService,
    private readonly queues: QueueMonitor,
  ) {}

  /**
   * The minute's tick, run as far back as the digest is behind: check-ins travel to the worker
   * through the digest queue, so a check-in that arrived before its deadline may still be waiting
   * there when the deadline passes. The clock sees the time up to which every check-in has been
   * stored (now less how long the oldest waiting digest job has waited), as Sentry's clock follows
   * the check-ins it has consumed; a backed-up queue delays the misses instead of calling runs
   * missed that checked in. When Redis does not answer, nothing can wait there unseen: now.
   */
  async tickBehindDigest(): Promise<TickResult> {
    const now = this.clock.now();
    const lagMs = (await this.queues.snapshot())?.digestOldestWaitingMs ?? 0;
    if (lagMs >= LAG_LOGGED_MS) {
      this.lagLog.warn(
        'lag',
        `cron clock held back ${Math.round(lagMs / 1000)} s: the digest queue's oldest job waits since then`,
      );
    }
    return this.tick(new Date(now.getTime() - lagMs));
  }

  async tick(now: Date = this.clock.now()): Promise<TickResult> {
    const result: TickResult = { missed: 0, timedOut: 0, environments: 0 };
    for (;;) {
      const ids = await this.checkIns.timedOutIds(now, BATCH);
      const done = await inParallel(ids, (id) => this.timeOut(id, now));
      result.timedOut += done.filter(Boolean).length;
      if (ids.length < BATCH) break;
    }
    for (;;) {
      const ids = await this.monitors.dueEnvironmentIds(now, BATCH);
      const chunks: number[][] = [];
      for (let i = 0; i < ids.length; i += MISSED_PER_TRANSACTION)
        chunks.push(ids.slice(i, i + MISSED_PER_TRANSACTION));
      const counts = (await inParallel(chunks, (chunk) => this.markMissed(chunk, now))).flat();
      for (const count of counts) {
        if (count > 0) {
          result.missed += count;
          result.environments++;
        }
      }
      if (ids.length < BATCH) break;
    }
    if (result.missed > 0 || result.timedOut > 0) {
      this.logger.log(
        `cron clock: ${result.missed} missed check-in(s) in ${result.environments} environment(s), ${result.timedOut} timed out`,
      );
    }
    return result;
  }

  private async timeOut(id: string, now: Date): Promise<boolean> {
    let incident: MonitorIncidentResult | undefined;
    const done = await this.dataSource.transaction(async (manager) => {
      const row = await this.checkIns.findForUpdate(manager, id);
      if (!row || row.status !== 'in_progress' || !row.timeout_at || row.timeout_at > now) return false;
      const monitor = await this.monitors.findById(manager, row.monitor_id);
      if (!monitor) return false;
      const env = await this.monitors.lockEnvironment(manager, monitor.id, row.environment);
      await this.checkIns.update(manager, id, { status: 'timeout', updated_at: row.timeout_at });
      const step = failureStep(env, monitor, 'timeout');
      await this.monitors.updateEnvironment(manager, env.id, step.change);
      if (step.effect === 'opened' || step.effect === 'counted') {
        incident = await this.incidents.monitorFailed(
          refOf(monitor, env.environment),
          {
            at: row.timeout_at,
            reason: 'timeout',
            detail: `Check-in still in progress after ${monitor.max_runtime} minute(s)`,
            checkInId: id,
          },
          manager,
        );
      }
      return true;
    });
    if (incident) await this.incidents.publish(incident);
    return done;
  }

  /**
   * Records the missed runs of a batch of due environments in one transaction (0 each when another
   * tick got there first); returns the count per environment.
   */
  private async markMissed(envIds: number[], now: Date): Promise<number[]> {
    const incidents: MonitorIncidentResult[] = [];
    const counts = await this.dataSource.transaction(async (manager) => {
      const due = await this.monitors.lockDue(manager, envIds, now);
      const missedRows: { id: string; monitorId: number; environment: string; expectedAt: Date }[] = [];
      const changes: Parameters<CronMonitorsRepository['updateMissed']>[1] = [];
      const failures: { ref: MonitorRef; failure: MonitorFailure }[] = [];
      const counts: number[] = [];
      for (const { env, monitor } of due) {
        if (!env.next_expected_at) continue;
        const schedule = scheduleOf(monitor);
        const margin = marginMs(monitor);
        const lastDue = new Date(now.getTime() - margin);
        const missed = [
          env.next_expected_at,
          ...expectedBetween(
            schedule,
            monitor.timezone,
            env.next_expected_at,
            lastDue,
            MAX_MISSES_PER_TICK - 1,
          ),
        ];
        for (const expectedAt of missed) {
          missedRows.push({
            id: randomUUID(),
            monitorId: monitor.id,
            environment: env.environment,
            expectedAt,
          });
        }
        let next = nextExpected(schedule, monitor.timezone, missed[missed.length - 1]);
        if (next.getTime() + margin <= now.getTime())
          next = nextExpected(schedule, monitor.timezone, lastDue);
        const step = failureStep(env, monitor, 'missed', missed.length);
        changes.push({
          id: env.id,
          status: 'missed',
          nextExpectedAt: next,
          deadlineAt: new Date(next.getTime() + margin),
          failures: step.change.consecutive_failures ?? env.consecutive_failures + missed.length,
          incidentOpen: step.change.incident_open ?? env.incident_open,
        });
        // From the one that opened the incident, or all while it is open, each missed run counts on it.
        if (step.effect === 'opened' || step.effect === 'counted') {
          const counted = missed.slice(Math.min(step.fromIndex, missed.length - 1));
          const at = (first: Date) => timeInWords(first, monitor.timezone, now);
          failures.push({
            ref: refOf(monitor, env.environment),
            failure: {
              at: counted[counted.length - 1],
              since: counted[0],
              count: counted.length,
              reason: 'missed',
              detail:
                missed.length === 1
                  ? `No check-in expected at ${at(missed[0])}`
                  : `No check-ins for ${missed.length} runs expected from ${at(missed[0])}`,
            },
          });
        }
        counts.push(missed.length);
      }
      await this.checkIns.insertMissed(manager, missedRows, now);
      await this.monitors.updateMissed(manager, changes);
      // All at once, so that their issues are locked in the lock order (see issues.repository.ts).
      incidents.push(...(await this.incidents.monitorsFailed(manager, failures)));
      return counts;
    });
    for (const incident of incidents) await this.incidents.publish(incident);
    return counts;
  }
}

function refOf(monitor: CronMonitorRow, environment: string): MonitorRef {
  return {
    projectId: monitor.project_id,
    kind: 'cron',
    monitorId: monitor.id,
    slug: monitor.slug,
    name: monitor.name,
    environment,
  };
}

/** Runs `work` over the items, PARALLEL at a time, in their order. */
async function inParallel<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(PARALLEL, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  });
  await Promise.all(lanes);
  return results;
}
