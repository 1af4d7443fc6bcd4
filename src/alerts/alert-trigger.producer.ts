import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { QueueName } from '../common/queues';
import { AlertJobName, AlertTrigger, alertTriggerJobId } from './alert-trigger';

/**
 * Publishes lifecycle transitions onto the alerts queue. Producers (the digest, the issue state API)
 * never deliver anything themselves, so a slow receiver cannot slow them down.
 */
@Injectable()
export class AlertTriggerProducer {
  private readonly logger = new Logger(AlertTriggerProducer.name);

  constructor(@InjectQueue(QueueName.Alerts) private readonly queue: Queue) {}

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
