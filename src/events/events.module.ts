import { Module } from '@nestjs/common';
import { EventsController } from './events.controller';
import { EventServicesModule } from './event-services.module';

/** The events API (role `api`). */
@Module({
  imports: [EventServicesModule],
  controllers: [EventsController],
  exports: [EventServicesModule],
})
export class EventsModule {}
