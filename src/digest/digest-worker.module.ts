import { Module } from '@nestjs/common';
import { AlertTriggersModule } from '../issues/transitions/alert-triggers.module';
import { QueueName } from '../common/queues';
import { registerQueue } from '../jobs/queue-layout';
import { EventsDataModule } from '../events/events-data.module';
import { IssuesDataModule } from '../issues/issues-data.module';
import { ReleasesDataModule } from '../releases/releases-data.module';
import { RollupFolder } from '../rollups/rollup-folder';
import { RollupsDataModule } from '../rollups/rollups-data.module';
import { WorkerHeartbeat } from '../jobs/worker-heartbeat';
import { SymbolicationModule } from '../symbolication/symbolication.module';
import { DigestProcessor } from './digest.processor';
import { DigestService } from './digest.service';
import { FailedDigestSweeper } from './failed-digest-sweeper';
import { DatabaseWriteProbe } from '../database/database-write-probe';
import { EventBatchWriter } from './event-batch-writer';
import { IssueStoreService } from './issue-store.service';
import { FeedbackDataModule } from '../feedback/feedback-data.module';
import { PrivacyWorkerModule } from '../privacy/privacy-worker.module';
import { FeedbackStoreService } from '../feedback/feedback-store.service';
import { CronServicesModule } from '../monitors/crons/cron-services.module';
import { OutcomesDataModule } from '../outcomes/outcomes-data.module';

/** The consuming side of the digest queue (worker role). */
@Module({
  imports: [
    registerQueue(QueueName.Digest),
    AlertTriggersModule,
    EventsDataModule,
    RollupsDataModule,
    ReleasesDataModule,
    IssuesDataModule,
    SymbolicationModule,
    FeedbackDataModule,
    PrivacyWorkerModule,
    CronServicesModule,
    OutcomesDataModule,
  ],
  providers: [
    DigestProcessor,
    DigestService,
    EventBatchWriter,
    IssueStoreService,
    RollupFolder,
    WorkerHeartbeat,
    FailedDigestSweeper,
    DatabaseWriteProbe,
    FeedbackStoreService,
  ],
  exports: [DigestService, RollupFolder],
})
export class DigestWorkerModule {}
