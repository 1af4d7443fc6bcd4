import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventPartitions } from './event-partitions';
import { ErrorEvent } from './event.entity';
import { EventsService } from './events.service';

/** EventsService and the events' partitions without the HTTP routes, for workers (see IssuesDataModule). */
@Module({
  imports: [TypeOrmModule.forFeature([ErrorEvent])],
  providers: [EventsService, EventPartitions],
  exports: [EventsService, EventPartitions],
})
export class EventsDataModule {}
