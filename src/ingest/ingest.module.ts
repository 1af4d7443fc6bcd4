import { Module } from '@nestjs/common';
import { ClientKeyGuard } from './client-key.guard';
import { DigestBacklog } from './digest-backlog';
import { DigestProducer, digestProducerQueueProvider } from './digest.producer';
import { IngestController } from './ingest.controller';
import { IngestMetrics } from './ingest.metrics';
import { IngestService } from './ingest.service';
import { MetricsController } from './metrics.controller';
import { ProjectKeys } from './project-keys';
import { IngestRateLimiter } from './rate-limiter';

@Module({
  controllers: [IngestController, MetricsController],
  providers: [
    ClientKeyGuard,
    ProjectKeys,
    IngestRateLimiter,
    digestProducerQueueProvider,
    DigestProducer,
    DigestBacklog,
    IngestMetrics,
    IngestService,
  ],
  exports: [DigestBacklog],
})
export class IngestModule {}
