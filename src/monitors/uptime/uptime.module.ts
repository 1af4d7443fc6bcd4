import { Module } from '@nestjs/common';
import { ProjectsModule } from '../../projects/projects.module';
import { UptimeController } from './uptime.controller';
import { UptimeMonitorsService } from './uptime-monitors.service';
import { UptimeServicesModule } from './uptime-services.module';

/** API role: uptime monitors, their checks and uptime. */
@Module({
  imports: [UptimeServicesModule, ProjectsModule],
  controllers: [UptimeController],
  providers: [UptimeMonitorsService],
})
export class UptimeModule {}
