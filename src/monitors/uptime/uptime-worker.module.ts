import { Module } from '@nestjs/common';
import { QueueName } from '../../common/queues';
import { registerQueue } from '../../jobs/queue-layout';
import { UptimeCheckRunner } from './uptime-check-runner.service';
import { UptimeProcessor } from './uptime.processor';
import { UptimeScheduler } from './uptime-scheduler.service';
import { UptimeServicesModule } from './uptime-services.module';

/** Worker role: the tick that queues due checks, and the checks. */
@Module({
  imports: [registerQueue(QueueName.Uptime), UptimeServicesModule],
  providers: [UptimeScheduler, UptimeCheckRunner, UptimeProcessor],
  exports: [UptimeScheduler, UptimeCheckRunner],
})
export class UptimeWorkerModule {}
