import { Module } from '@nestjs/common';
import { HealthModule } from '../health/health.module';
import { JobsModule } from '../jobs/jobs.module';
import { OutcomesDataModule } from '../outcomes/outcomes-data.module';
import { AttachmentsDataModule } from '../attachments/attachments-data.module';
import { AttachmentIntakes } from './attachment-intake';
import { InboundFilterSnapshotModule } from '../privacy/filters/inbound-filters.module';
import { ProjectsModule } from '../projects/projects.module';
import { DigestProducer, digestProducerQueueProvider } from './digest.producer';
import { FeedbackIntake } from './feedback-intake';
import { CheckInIntake } from './check-in-intake';
import { EnvelopeItemIntake } from './envelope-item-intake';
import { CronCheckInEndpoint } from './cron-check-in.endpoint';
import { IngestHttpHandler } from './ingest-http.handler';
import { IngestMetrics } from './ingest.metrics';
import { IngestService } from './ingest.service';
import { MetricsController } from './metrics.controller';
import { ErrorPageController } from './error-page.controller';
import { ProjectKeys } from './project-keys';
import { IngestLimitsModule } from '../limits/ingest-limits.module';
import { ReleaseHealthDataModule } from '../releases/health/release-health-data.module';
import { SessionIntake } from './session-intake';
import { TestEventController } from './test-event.controller';
import { TestEventSender } from './test-event';

/** Ingestion is served by IngestHttpHandler, mounted ahead of Express by src/http-app.ts. */
@Module({
  // ProjectsModule: its key changes reach the client-key snapshot at once.
  imports: [
    JobsModule,
    HealthModule,
    ProjectsModule,
    OutcomesDataModule,
    ReleaseHealthDataModule,
    AttachmentsDataModule,
    InboundFilterSnapshotModule,
    IngestLimitsModule,
  ],
  controllers: [MetricsController, TestEventController, ErrorPageController],
  providers: [
    ProjectKeys,
    SessionIntake,
    digestProducerQueueProvider,
    DigestProducer,
    FeedbackIntake,
    CheckInIntake,
    EnvelopeItemIntake,
    CronCheckInEndpoint,
    IngestMetrics,
    AttachmentIntakes,
    IngestService,
    IngestHttpHandler,
    TestEventSender,
  ],
  exports: [IngestHttpHandler],
})
export class IngestModule {}
