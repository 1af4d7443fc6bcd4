import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { QueueName } from '../../common/queues';
import { AlertJobName, AlertTrigger, alertTriggerJobId } from './alert-trigger';
import { AlertTriggerOutboxRepository } from './alert-trigger-outbox.repository';

/** Triggers written to the outbox in a transaction, to be published once it has committed. */
export interface RecordedTriggers {
  ids: string[];
  triggers: AlertTrigger[];
}

/** Outbox rows older than this are assumed orphaned by a crash or an outage and published again. */
export const OUTBOX_GRACE_MS = 30_000;
const SWEEP_BATCH = 500;

/**
 * Publishes lifecycle transitions onto the alerts queue. Producers (the digest, the issue state API)
 * never deliver anything themselves, so a slow receiver cannot slow them down.
 *
 * Transitions are first recorded in the `alert_trigger_outbox` table inside the producer's own
 * transaction, then published after the commit. What could not be published (Redis down, process
 * killed) is published later by `sweep`. Publishing twice is harmless: trigger job ids and delivery
 * idempotency keys are derived from the trigger itself.
 */
@Injectable()
export class AlertTriggerProducer {
  private readonly logger = new Logger(AlertTriggerProducer.name);

  constructor(
    @InjectQueue(QueueName.Alerts) private readonly queue: Queue,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: AlertTriggerOutboxRepository,
  ) {}

  async record(manager: EntityManager, triggers: AlertTrigger[]): Promise<RecordedTriggers> {
    if (triggers.length === 0) return { ids: [], triggers };
    return { ids: await this.outbox.insert(manager, triggers), triggers };
  }

  /** After the commit: enqueue, then clear the outbox rows. A failure leaves them for `sweep`. */
  async publish(recorded: RecordedTriggers): Promise<void> {
    if (recorded.triggers.length === 0) return;
    try {
      await this.emit(recorded.triggers);
      await this.outbox.delete(recorded.ids);
    } catch (error) {
      this.logger.warn(
        `${recorded.triggers.length} alert trigger(s) kept in the outbox for a later retry: ${(error as Error).message}`,
      );
    }
  }

  /** Publishes outbox rows left behind for longer than OUTBOX_GRACE_MS. Returns how many. */
  async sweep(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await this.outbox.takeOverdue(manager, OUTBOX_GRACE_MS, SWEEP_BATCH);
      if (rows.length === 0) return 0;
      await this.emit(
        rows.map((row) => ({
          alertType: row.alert_type,
          projectId: row.project_id,
          issueId: row.issue_id,
          occurredAt: new Date(row.occurred_at).toISOString(),
        })),
      );
      await this.outbox.delete(
        rows.map((row) => row.id),
        manager,
      );
      this.logger.log(`published ${rows.length} alert trigger(s) left in the outbox`);
      return rows.length;
    });
  }

  /** Enqueues triggers directly (no outbox). */
  async emit(triggers: AlertTrigger[]): Promise<void> {
    if (triggers.length === 0) return;
    await this.queue.addBulk(
      triggers.map((trigger) => ({
        name: AlertJobName.Trigger,
        data: trigger,
        opts: {
          jobId: alertTriggerJobId(trigger),
          attempts: 5,
          backoff: { type: 'exponential', delay: 1_000 },
          removeOnComplete: 1_000,
          removeOnFail: 5_000,
        },
      })),
    );
    for (const trigger of triggers) {
      this.logger.log(`alert trigger ${trigger.alertType} for issue ${trigger.issueId}`);
    }
  }
}
