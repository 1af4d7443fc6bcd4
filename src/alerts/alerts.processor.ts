import { InjectQueue, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  BeforeApplicationShutdown,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Job, Queue, UnrecoverableError } from 'bullmq';
import { QueueName } from '../common/queues';
import { closeWorkerWithin } from '../jobs/close-worker';
import { KeptJobScheduler } from '../jobs/kept-job-scheduler';
import { WorkerErrorLog } from '../jobs/worker-error-log';
import { AlertDeliveryService } from './alert-delivery.service';
import { AlertDeliveryJob, AlertDispatchService } from './alert-dispatch.service';
import { AlertJobName, AlertTrigger, alertTriggerJobId } from '../issues/transitions/alert-trigger';
import { AlertTriggerProducer } from '../issues/transitions/alert-trigger.producer';
import { DeliveryError } from './senders/delivery-error';
import {
  RELEASE_HEALTH_EVALUATION_EVERY_MS,
  ReleaseHealthAlertsService,
} from './release-health-alerts.service';
import { SPIKE_CHECK_EVERY_MS, SpikeAlertsService } from './spike-alerts.service';

/** How often the outbox is swept: once per interval for the whole installation (KeptJobScheduler). */
const OUTBOX_SWEEP_EVERY_MS = 15_000;

/**
 * How long a stopping worker waits for the deliveries it holds (a webhook's own timeout fits in it);
 * one left unfinished is delivered again by another worker, under the same idempotency key.
 */
const CLOSE_GRACE_MS = 15_000;

/** The alerts queue's only consumer: routes each job to its service. */
@Processor(QueueName.Alerts, { concurrency: 10 })
export class AlertsProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly outboxSweeps: KeptJobScheduler;
  private readonly releaseHealthChecks: KeptJobScheduler;
  private readonly spikeChecks: KeptJobScheduler;
  private readonly workerErrors = new WorkerErrorLog(new Logger(AlertsProcessor.name), QueueName.Alerts);

  constructor(
    @InjectQueue(QueueName.Alerts) queue: Queue,
    private readonly dispatcher: AlertDispatchService,
    private readonly delivery: AlertDeliveryService,
    private readonly triggers: AlertTriggerProducer,
    private readonly releaseHealth: ReleaseHealthAlertsService,
    private readonly spikes: SpikeAlertsService,
  ) {
    super();
    this.spikeChecks = new KeptJobScheduler(
      queue,
      {
        name: AlertJobName.CheckSpikes,
        repeat: { every: SPIKE_CHECK_EVERY_MS },
        opts: { removeOnComplete: true, removeOnFail: true },
      },
      new Logger(AlertsProcessor.name),
    );
    // Once a minute for the installation, however many workers: each breach is judged by one job.
    this.releaseHealthChecks = new KeptJobScheduler(
      queue,
      {
        name: AlertJobName.EvaluateReleaseHealth,
        repeat: { every: RELEASE_HEALTH_EVALUATION_EVERY_MS },
        opts: { removeOnComplete: true, removeOnFail: true },
      },
      new Logger(AlertsProcessor.name),
    );
    this.outboxSweeps = new KeptJobScheduler(
      queue,
      {
        name: AlertJobName.SweepOutbox,
        repeat: { every: OUTBOX_SWEEP_EVERY_MS },
        opts: { removeOnComplete: true },
      },
      new Logger(AlertsProcessor.name),
    );
  }

  onApplicationBootstrap(): void {
    this.outboxSweeps.start();
    this.releaseHealthChecks.start();
    this.spikeChecks.start();
  }

  /** Closed before @nestjs/bullmq closes its workers, which would wait for a stuck job forever. */
  async beforeApplicationShutdown(): Promise<void> {
    try {
      await closeWorkerWithin(this.worker, CLOSE_GRACE_MS);
    } catch (error) {
      this.workerErrors.report(error as Error);
    }
  }

  onApplicationShutdown(): void {
    this.outboxSweeps.stop();
    this.releaseHealthChecks.stop();
    this.spikeChecks.stop();
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.workerErrors.report(error);
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
      case AlertJobName.SweepOutbox:
        return this.triggers.sweep();
      case AlertJobName.EvaluateReleaseHealth:
        return this.releaseHealth.evaluate();
      case AlertJobName.CheckSpikes:
        return this.spikes.check();
      default:
        throw new UnrecoverableError(`unknown alerts job "${job.name}"`);
    }
  }
}
