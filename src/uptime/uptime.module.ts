import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { StatusPageController } from './status-page.controller';
import { StatusPageService } from './status-page.service';
import { UptimeController } from './uptime.controller';
import { UptimeMonitorsService } from './uptime-monitors.service';
import { UptimeServicesModule } from './uptime-services.module';
import { CronsDataModule } from '../crons/crons-data.module';

/** API role: uptime monitors, their checks and uptime, status pages. */
@Module({
  imports: [UptimeServicesModule, ProjectsModule, CronsDataModule],
  controllers: [UptimeController, StatusPageController],
  providers: [UptimeMonitorsService, StatusPageService],
})
export class UptimeModule {}
