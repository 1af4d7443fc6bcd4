import { Module } from '@nestjs/common';
import { ArtifactsDataModule } from '../artifacts/artifacts-data.module';
import { QueueName } from '../common/queues';
import { registerQueue } from '../jobs/queue-layout';
import { EventsDataModule } from '../events/events-data.module';
import { IssuesDataModule } from '../issues/issues-data.module';
import { OutcomesDataModule } from '../outcomes/outcomes-data.module';
import { ProjectsDataModule } from '../projects/projects-data.module';
import { RollupsDataModule } from '../rollups/rollups-data.module';
import { ExpiredRecords } from './expired-records';
import { MaintenanceProcessor } from './maintenance.processor';
import { RetentionService } from './retention.service';

/** Worker role: scheduled retention of events, rollups, issues, alert history, sessions and source maps. */
@Module({
  imports: [
    registerQueue(QueueName.Maintenance),
    EventsDataModule,
    IssuesDataModule,
    RollupsDataModule,
    ArtifactsDataModule,
    ProjectsDataModule,
    OutcomesDataModule,
  ],
  providers: [RetentionService, ExpiredRecords, MaintenanceProcessor],
  exports: [RetentionService],
})
export class RetentionModule {}
