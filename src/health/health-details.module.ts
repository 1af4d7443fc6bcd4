import { Module } from '@nestjs/common';
import { HealthDetailsController } from './health-details.controller';
import { HealthModule } from './health.module';

/** The readiness details route; an api module, since only the api role checks tokens and sessions. */
@Module({
  imports: [HealthModule],
  controllers: [HealthDetailsController],
})
export class HealthDetailsModule {}
