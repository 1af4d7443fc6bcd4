import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CheckInsRepository } from './check-ins.repository';
import { CronClock } from './cron-clock';
import { expectedBetween, nextExpected } from './cron-schedule';
import { CronMonitorRow, CronMonitorsRepository } from './cron-monitors.repository';
import { CronMonitorRef, MONITOR_INCIDENTS, MonitorIncidents } from './monitor-incidents.port';
import { failureStep, marginMs, scheduleOf } from './monitor-state';

/** Due environments and timed-out check-ins are read this many at a time. */
const BATCH = 500;
/** Transactions a tick runs side by side (the pool has 20 connections). */
const PARALLEL = 8;
/**
 * After an outage, at most this many missed runs of one monitor and environment are recorded, the
 * earliest first; the rest of the gap is skipped. The incident opens once whatever the count.
 */
export const MAX_MISSES_PER_TICK = 60;

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

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly monitors: CronMonitorsRepository,
    private readonly checkIns: CheckInsRepository,
    private readonly clock: CronClock,
    @Inject(MONITOR_INCIDENTS) private readonly incidents: MonitorIncidents,
  ) {}

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
      const counts = await inParallel(ids, (id) => this.markMissed(id, now));
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

  private timeOut(id: string, now: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.checkIns.findForUpdate(manager, id);
      if (!row || row.status !== 'in_progress' || !row.timeout_at || row.timeout_at > now) return false;
      const monitor = await this.monitors.findById(manager, row.monitor_id);
      if (!monitor) return false;
      const env = await this.monitors.lockEnvironment(manager, monitor.id, row.environment);
      await this.checkIns.update(manager, id, { status: 'timeout', updated_at: row.timeout_at });
      const step = failureStep(env, monitor, 'timeout');
      await this.monitors.updateEnvironment(manager, env.id, step.change);
      if (step.crossing === 'failed') {
        await this.incidents.monitorFailed(
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
  }

  /** The number of missed runs recorded (0 when another tick got there first). */
  private markMissed(envId: number, now: Date): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const env = await this.monitors.lockEnvironmentById(manager, envId);
      if (!env?.deadline_at || !env.next_expected_at || env.deadline_at > now) return 0;
      const monitor = await this.monitors.findById(manager, env.monitor_id);
      if (!monitor) return 0;
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
      for (const expected of missed) {
        await this.checkIns.insert(manager, {
          id: randomUUID(),
          monitor_id: monitor.id,
          environment: env.environment,
          status: 'missed',
          duration_ms: null,
          release: null,
          expected_at: expected,
          timeout_at: null,
          created_at: expected,
          updated_at: now,
        });
      }
      let next = nextExpected(schedule, monitor.timezone, missed[missed.length - 1]);
      if (next.getTime() + margin <= now.getTime()) next = nextExpected(schedule, monitor.timezone, lastDue);
      const step = failureStep(env, monitor, 'missed', missed.length);
      await this.monitors.updateEnvironment(manager, env.id, {
        ...step.change,
        next_expected_at: next,
        deadline_at: new Date(next.getTime() + margin),
      });
      if (step.crossing === 'failed') {
        const at = missed[Math.min(step.crossingIndex, missed.length - 1)];
        await this.incidents.monitorFailed(
          refOf(monitor, env.environment),
          {
            at,
            reason: 'missed',
            detail:
              missed.length === 1
                ? `No check-in expected at ${at.toISOString()}`
                : `No check-ins for ${missed.length} runs expected from ${missed[0].toISOString()}`,
          },
          manager,
        );
      }
      return missed.length;
    });
  }
}

function refOf(monitor: CronMonitorRow, environment: string): CronMonitorRef {
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
