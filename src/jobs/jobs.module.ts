import { Module } from '@nestjs/common';
import { QueueMonitor } from './queue-monitor';

/** Queue state for operators: digest backlog, failed sets and live workers, readable in every role. */
@Module({
  providers: [QueueMonitor],
  exports: [QueueMonitor],
})
export class JobsModule {}
