import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ErrorEvent } from './event.entity';
import { EventsService } from './events.service';

/** EventsService without the HTTP routes, for workers (see IssuesDataModule). */
@Module({
  imports: [TypeOrmModule.forFeature([ErrorEvent])],
  providers: [EventsService],
  exports: [EventsService],
})
export class EventsDataModule {}
