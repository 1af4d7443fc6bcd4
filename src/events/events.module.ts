import { Module } from '@nestjs/common';
import { EventsController } from './events.controller';
import { EventsDataModule } from './events-data.module';

/** The events API (role `api`). */
@Module({
  imports: [EventsDataModule],
  controllers: [EventsController],
  exports: [EventsDataModule],
})
export class EventsModule {}
