import { Module } from '@nestjs/common';
import { QueueName } from '../../common/queues';
import { registerQueue } from '../../jobs/queue-layout';
import { AlertTriggerOutboxRepository } from './alert-trigger-outbox.repository';
import { AlertTriggerProducer } from './alert-trigger.producer';

/** The producing side of the alerts queue, importable by anything that emits lifecycle triggers. */
@Module({
  imports: [registerQueue(QueueName.Alerts)],
  providers: [AlertTriggerProducer, AlertTriggerOutboxRepository],
  exports: [AlertTriggerProducer],
})
export class AlertTriggersModule {}
