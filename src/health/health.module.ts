import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseWriteProbe } from '../database/database-write-probe';
import { JobsModule } from '../jobs/jobs.module';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';
import { RedisWriteProbe } from './redis-write-probe';
import { RedisHealthIndicator } from './redis.health';

@Module({
  imports: [TerminusModule.forRoot({ logger: false }), JobsModule],
  controllers: [HealthController],
  providers: [RedisHealthIndicator, DatabaseWriteProbe, RedisWriteProbe, ReadinessService],
  exports: [ReadinessService],
})
export class HealthModule {}
