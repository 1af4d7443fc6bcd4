import { Module } from '@nestjs/common';
import { ChannelsDataModule } from '../channels/channels-data.module';
import { QueueName } from '../common/queues';
import { registerQueue } from '../jobs/queue-layout';
import { EventServicesModule } from '../events/event-services.module';
import { IssueServicesModule } from '../issues/issue-services.module';
import { MemberServicesModule } from '../members/member-services.module';
import { ProjectsDataModule } from '../projects/projects-data.module';
import { ReleaseHealthDataModule } from '../releases/health/release-health-data.module';
import { RulesDataModule } from '../rules/rules-data.module';
import { AlertDeliveryService } from './alert-delivery.service';
import { AlertDispatchService } from './alert-dispatch.service';
import { AlertTriggersModule } from '../issues/transitions/alert-triggers.module';
import { AlertsProcessor } from './alerts.processor';
import { ReleaseHealthAlertsService } from './release-health-alerts.service';
import { AlertSendersModule } from './senders/alert-senders.module';
import { QuotaLimitsModule } from '../limits/quota-limits.module';
import { QuotaAlertsService } from './quota-alerts.service';
import { SpikeAlertsService } from './spike-alerts.service';

/** Worker role: consumes the alerts queue (rule matching, cooldowns, delivery with retries), and the evaluation of release health rules once a minute. */
@Module({
  imports: [
    registerQueue(QueueName.Alerts),
    RulesDataModule,
    ChannelsDataModule,
    AlertSendersModule,
    AlertTriggersModule,
    IssueServicesModule,
    EventServicesModule,
    MemberServicesModule,
    ProjectsDataModule,
    ReleaseHealthDataModule,
    QuotaLimitsModule,
  ],
  providers: [
    AlertDispatchService,
    AlertDeliveryService,
    ReleaseHealthAlertsService,
    SpikeAlertsService,
    QuotaAlertsService,
    AlertsProcessor,
  ],
})
export class AlertsWorkerModule {}
