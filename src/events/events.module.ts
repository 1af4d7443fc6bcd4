import { Module } from '@nestjs/common';
import { IssuesModule } from '../issues/issues.module';
import { EventsController } from './events.controller';
import { EventsDataModule } from './events-data.module';

/** The events API (role `api`). */
@Module({
  imports: [EventsDataModule, IssuesModule],
  controllers: [EventsController],
  exports: [EventsDataModule],
})
export class EventsModule {}
