import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventPartitions } from './event-partitions';
import { EventPartitionsRepository } from './event-partitions.repository';
import { ErrorEvent } from './event.entity';
import { EventsRepository } from './events.repository';

/**
 * The events' rows and their partitions, without services or routes: the digest stores events,
 * merges move them, retention drops partitions.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ErrorEvent])],
  providers: [EventsRepository, EventPartitions, EventPartitionsRepository],
  exports: [EventsRepository, EventPartitions],
})
export class EventsDataModule {}
