import { Module } from '@nestjs/common';
import { QueueName } from '../../common/queues';
import { registerQueue } from '../../jobs/queue-layout';
import { CronClockProcessor } from './cron-clock.processor';
import { CronServicesModule } from './cron-services.module';

/** Worker role: the once-a-minute clock of cron monitors. */
@Module({
  imports: [registerQueue(QueueName.Monitors), CronServicesModule],
  providers: [CronClockProcessor],
  exports: [CronServicesModule],
})
export class CronsWorkerModule {}
