import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DigestBacklog } from '../ingest/digest-backlog';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [RedisHealthIndicator, DigestBacklog],
})
export class HealthModule {}
