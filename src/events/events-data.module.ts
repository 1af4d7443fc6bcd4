import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventPartitions } from './event-partitions';
import { EventPartitionsRepository } from './event-partitions.repository';
import { ErrorEvent } from './event.entity';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

/** EventsService and the events' partitions without the HTTP routes, for workers (see IssuesDataModule). */
@Module({
  imports: [TypeOrmModule.forFeature([ErrorEvent])],
  providers: [EventsService, EventsRepository, EventPartitions, EventPartitionsRepository],
  exports: [EventsService, EventsRepository, EventPartitions],
})
export class EventsDataModule {}
