import { Module } from '@nestjs/common';
import { IssuesDataModule } from '../../issues/issues-data.module';
import { AlertTriggersModule } from '../../issues/transitions/alert-triggers.module';
import { MonitorIncidentsService } from './monitor-incidents.service';

/** The issues monitors open and resolve, for the cron and uptime workers and APIs. No routes. */
@Module({
  imports: [IssuesDataModule, AlertTriggersModule],
  providers: [MonitorIncidentsService],
  exports: [MonitorIncidentsService],
})
export class MonitorIncidentsModule {}
