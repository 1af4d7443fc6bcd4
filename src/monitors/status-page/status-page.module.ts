import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { ProjectsModule } from '../../projects/projects.module';
import { CronsDataModule } from '../crons/crons-data.module';
import { UptimeServicesModule } from '../uptime/uptime-services.module';
import { StatusPageController } from './status-page.controller';
import { StatusPageService } from './status-page.service';
import { StatusPageRateLimit } from './status-page-rate-limit';
import { StatusPageRateLimitMiddleware } from './status-page-rate-limit.middleware';
import { StatusPagesRepository } from './status-pages.repository';

/** API role: status pages, which show uptime and cron monitors side by side. */
@Module({
  imports: [UptimeServicesModule, CronsDataModule, ProjectsModule],
  controllers: [StatusPageController],
  providers: [StatusPagesRepository, StatusPageService, StatusPageRateLimit],
})
export class StatusPageModule implements NestModule {
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
