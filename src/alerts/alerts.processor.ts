import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job, UnrecoverableError } from 'bullmq';
import { QueueName } from '../common/queues';
import { AlertDeliveryService } from './alert-delivery.service';
import { AlertDeliveryJob, AlertDispatchService } from './alert-dispatch.service';
import { AlertJobName, AlertTrigger, alertTriggerJobId } from './alert-trigger';
import { DeliveryError } from './senders/delivery-error';

/** The alerts queue's only consumer: routes each job to its service. */
@Processor(QueueName.Alerts, { concurrency: 10 })
export class AlertsProcessor extends WorkerHost {
  constructor(
    private readonly dispatcher: AlertDispatchService,
    private readonly delivery: AlertDeliveryService,
  ) {
    super();
  }

  async process(job: Job): Promise<unknown> {
    const name = job.name as AlertJobName;
    switch (name) {
      case AlertJobName.Trigger: {
        const trigger = job.data as AlertTrigger;
        return this.dispatcher.dispatch(trigger, job.id ?? alertTriggerJobId(trigger));
      }
      case AlertJobName.Deliver: {
        const { historyId } = job.data as AlertDeliveryJob;
        // attemptsMade counts the attempts finished before this one.
        const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        try {
          return await this.delivery.deliver(historyId, lastAttempt);
        } catch (error) {
          // Already recorded as failed: no point in the queue retrying.
          if (error instanceof DeliveryError && error.permanent) throw new UnrecoverableError(error.message);
          throw error;
        }
      }
      default:
        throw new UnrecoverableError(`unknown alerts job "${job.name}"`);
    }
  }
}
