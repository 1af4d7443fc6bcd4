import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { StatusPageController } from './status-page.controller';
import { StatusPageService } from './status-page.service';
import { StatusPageRateLimit } from './status-page-rate-limit';
import { StatusPageRateLimitMiddleware } from './status-page-rate-limit.middleware';
import { UptimeController } from './uptime.controller';
import { UptimeMonitorsService } from './uptime-monitors.service';
import { UptimeServicesModule } from './uptime-services.module';
import { CronsDataModule } from '../crons/crons-data.module';

/** API role: uptime monitors, their checks and uptime, status pages. */
@Module({
  imports: [UptimeServicesModule, ProjectsModule, CronsDataModule],
  controllers: [UptimeController, StatusPageController],
  providers: [UptimeMonitorsService, StatusPageService, StatusPageRateLimit],
})
export class UptimeModule implements NestModule {
  /** The public status page routes, the API's and the dashboard's page, are limited per address. */
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(StatusPageRateLimitMiddleware)
      .forRoutes(
        { path: 'api/status/:slug', method: RequestMethod.GET },
        { path: 'status/:slug', method: RequestMethod.GET },
      );
  }
}
