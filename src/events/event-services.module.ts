import { Module } from '@nestjs/common';
import { EventsDataModule } from './events-data.module';
import { EventsService } from './events.service';

/** EventsService without the HTTP routes, for workers (alert dispatch reads an issue's latest environment). */
@Module({
  imports: [EventsDataModule],
  providers: [EventsService],
  exports: [EventsService, EventsDataModule],
})
export class EventServicesModule {}
