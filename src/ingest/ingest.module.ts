import { Module } from '@nestjs/common';
import { HealthModule } from '../health/health.module';
import { JobsModule } from '../jobs/jobs.module';
import { OutcomesDataModule } from '../outcomes/outcomes-data.module';
import { AttachmentsDataModule } from '../attachments/attachments-data.module';
import { AttachmentIntakes } from './attachment-intake';
import { ProjectsModule } from '../projects/projects.module';
import { DigestProducer, digestProducerQueueProvider } from './digest.producer';
import { IngestHttpHandler } from './ingest-http.handler';
import { IngestMetrics } from './ingest.metrics';
import { IngestService } from './ingest.service';
import { MetricsController } from './metrics.controller';
import { ProjectKeys } from './project-keys';
import { IngestRateLimiter } from './rate-limiter';

/** Ingestion is served by IngestHttpHandler, mounted ahead of Express by src/http-app.ts. */
@Module({
  // ProjectsModule: its key changes reach the client-key snapshot at once.
  imports: [JobsModule, HealthModule, ProjectsModule, OutcomesDataModule, AttachmentsDataModule],
  controllers: [MetricsController],
  providers: [
    ProjectKeys,
    IngestRateLimiter,
    digestProducerQueueProvider,
    DigestProducer,
    IngestMetrics,
    AttachmentIntakes,
    IngestService,
    IngestHttpHandler,
  ],
  exports: [IngestHttpHandler],
})
export class IngestModule {}
