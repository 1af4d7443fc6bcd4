import { Module } from '@nestjs/common';
import { DigestBacklog } from './digest-backlog';
import { DigestProducer, digestProducerQueueProvider } from './digest.producer';
import { IngestHttpHandler } from './ingest-http.handler';
import { IngestMetrics } from './ingest.metrics';
import { IngestService } from './ingest.service';
import { MetricsController } from './metrics.controller';
import { ProjectKeys } from './project-keys';
import { IngestRateLimiter } from './rate-limiter';

/** Ingestion is served by IngestHttpHandler, mounted ahead of Express by src/http-app.ts. */
@Module({
  controllers: [MetricsController],
  providers: [
    ProjectKeys,
    IngestRateLimiter,
    digestProducerQueueProvider,
    DigestProducer,
    DigestBacklog,
    IngestMetrics,
    IngestService,
    IngestHttpHandler,
  ],
  exports: [DigestBacklog, IngestHttpHandler],
})
export class IngestModule {}
