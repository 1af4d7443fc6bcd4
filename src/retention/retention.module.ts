import { Module } from '@nestjs/common';
import { ArtifactsDataModule } from '../artifacts/artifacts-data.module';
import { QueueName } from '../common/queues';
import { registerQueue } from '../jobs/queue-layout';
import { EventsDataModule } from '../events/events-data.module';
import { IssueServicesModule } from '../issues/issue-services.module';
import { OutcomesDataModule } from '../outcomes/outcomes-data.module';
import { ReleaseHealthDataModule } from '../releases/health/release-health-data.module';
import { FeedbackDataModule } from '../feedback/feedback-data.module';
import { AttachmentsDataModule } from '../attachments/attachments-data.module';
import { ProjectsDataModule } from '../projects/projects-data.module';
import { RollupsDataModule } from '../rollups/rollups-data.module';
import { RulesDataModule } from '../rules/rules-data.module';
import { UsersDataModule } from '../users/users-data.module';
import { UptimeDataModule } from '../monitors/uptime/uptime-data.module';
import { CronsDataModule } from '../monitors/crons/crons-data.module';
import { MaintenanceProcessor } from './maintenance.processor';
import { RetentionService } from './retention.service';

/** Worker role: scheduled retention of events, rollups, issues, alert history, sessions, source maps, attachments and uptime checks. */
@Module({
  imports: [
    registerQueue(QueueName.Maintenance),
    EventsDataModule,
    IssueServicesModule,
    RollupsDataModule,
    ArtifactsDataModule,
    ProjectsDataModule,
    RulesDataModule,
    UsersDataModule,
    OutcomesDataModule,
    ReleaseHealthDataModule,
    FeedbackDataModule,
    AttachmentsDataModule,
    UptimeDataModule,
    CronsDataModule,
  ],
  providers: [RetentionService, MaintenanceProcessor],
  exports: [RetentionService],
})
export class RetentionModule {}
