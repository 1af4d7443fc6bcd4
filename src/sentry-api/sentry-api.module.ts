import { Module } from '@nestjs/common';
import { ArtifactsModule } from '../artifacts/artifacts.module';
import { ProjectsModule } from '../projects/projects.module';
import { ReleasesModule } from '../releases/releases.module';
import { SentryApiFallbackController } from './sentry-api-fallback.controller';
import { SentryReleasesController } from './sentry-releases.controller';
import { SentryReleasesService } from './sentry-releases.service';
import { SentryUploadsController } from './sentry-uploads.controller';

/** The routes of Sentry's own API that sentry-cli and the bundler plugins call (role `api`). */
@Module({
  imports: [ArtifactsModule, ReleasesModule, ProjectsModule],
  // The fallback last: it answers what the others do not.
  controllers: [SentryUploadsController, SentryReleasesController, SentryApiFallbackController],
  providers: [SentryReleasesService],
})
export class SentryApiModule {}
