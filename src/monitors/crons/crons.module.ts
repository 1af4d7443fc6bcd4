import { Module } from '@nestjs/common';
import { ProjectsModule } from '../../projects/projects.module';
import { CronMonitorsController } from './cron-monitors.controller';
import { CronMonitorsService } from './cron-monitors.service';
import { CronServicesModule } from './cron-services.module';

/** The cron monitors API (role `api`). */
@Module({
  imports: [CronServicesModule, ProjectsModule],
  controllers: [CronMonitorsController],
  providers: [CronMonitorsService],
})
export class CronsModule {}
