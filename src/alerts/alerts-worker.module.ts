import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationChannel } from '../channels/channel.entity';
import { QueueName } from '../common/queues';
import { registerQueue } from '../jobs/queue-layout';
import { EventsDataModule } from '../events/events-data.module';
import { IssuesDataModule } from '../issues/issues-data.module';
import { MembersDataModule } from '../members/members-data.module';
import { AlertHistoryEntry } from '../rules/alert-history.entity';
import { AlertRule } from '../rules/alert-rule.entity';
import { AlertDeliveryService } from './alert-delivery.service';
import { AlertDispatchService } from './alert-dispatch.service';
import { AlertTriggersModule } from '../issues/transitions/alert-triggers.module';
import { AlertsProcessor } from './alerts.processor';
import { AlertSendersModule } from './senders/alert-senders.module';

/** Worker role: consumes the alerts queue (rule matching, cooldowns, delivery with retries). */
@Module({
  imports: [
    registerQueue(QueueName.Alerts),
    TypeOrmModule.forFeature([AlertRule, AlertHistoryEntry, NotificationChannel]),
    AlertSendersModule,
    AlertTriggersModule,
    IssuesDataModule,
    EventsDataModule,
    MembersDataModule,
  ],
  providers: [AlertDispatchService, AlertDeliveryService, AlertsProcessor],
})
export class AlertsWorkerModule {}
