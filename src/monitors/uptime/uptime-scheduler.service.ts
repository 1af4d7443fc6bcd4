import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { QueueName } from '../../common/queues';
import { AppConfig } from '../../config/app-config';
import { UptimeClock } from './uptime-clock';
import { CHECK_PRIORITY, checkJobId, UptimeCheckJob, UptimeJobName } from './uptime-jobs';
import { UptimeMonitorsRepository } from './uptime-monitors.repository';
import { dueSlots } from './uptime-slots';

/** Monitors claimed per transaction: short locks, bounded job batches. */
const CLAIM_BATCH = 500;

/**
 * Finds the checks that are due, or will be before the next tick, and queues them, once each: a
 * check due before the next tick is queued as a delayed job that starts at its due time, so checks
 * start on time rather than up to a tick late. Claiming and queueing share a
 * transaction: the due monitors are locked (`FOR UPDATE SKIP LOCKED`, so concurrent ticks split
 * them), their next due time moved on, their check jobs added to Redis, and only then the claim
 * committed. A tick that dies before the commit leaves the checks due for the next one, whose jobs
 * carry the same ids (`checkJobId`): a check is neither lost nor queued twice.
 */
@Injectable()
export class UptimeScheduler {
  constructor(
    private readonly monitors: UptimeMonitorsRepository,
    private readonly clock: UptimeClock,
    @InjectQueue(QueueName.Uptime) private readonly queue: Queue,
    private readonly config: AppConfig,
  ) {}

  /** Queues every check due before the next tick; returns how many. */
  async tick(): Promise<number> {
    const now = this.clock.now();
    const horizon = new Date(now.getTime() + this.config.UPTIME_TICK_MS);
    let queued = 0;
    for (;;) {
      const claimed = await this.monitors.transaction(async (manager) => {
        const due = await this.monitors.lockDue(manager, horizon, CLAIM_BATCH);
        const slots = due.map((row) => ({
          id: row.id,
          ...dueSlots(row.next_due_at, now, row.interval_seconds),
        }));
        await this.monitors.reschedule(
          manager,
          slots.map((slot) => ({ id: slot.id, nextDueAt: slot.nextDueAt })),
        );
        if (slots.length > 0) {
          await this.queue.addBulk(
            slots.map((slot) => ({
              name: UptimeJobName.Check,
              data: { monitorId: slot.id, dueAt: slot.dueAt.toISOString() } satisfies UptimeCheckJob,
              opts: {
                jobId: checkJobId(slot.id, slot.dueAt),
                priority: CHECK_PRIORITY,
                delay: Math.max(0, slot.dueAt.getTime() - now.getTime()),
                // The check itself never throws: only the database away fails a job, and that
                // passes. About 20 minutes of retries before the failed set.
                attempts: 9,
                backoff: { type: 'exponential', delay: 5_000 },
                // Kept a while, so that a claim repeated after a crash finds the id taken; the
                // recorded check (its key is the same) refuses a second run after that.
                removeOnComplete: { age: 600, count: 10_000 },
                removeOnFail: { age: 86_400, count: 1_000 },
              },
            })),
          );
        }
        return slots.length;
      });
      queued += claimed;
      if (claimed < CLAIM_BATCH) return queued;
    }
  }
}
