import { All, Controller, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { NotFoundError } from '../common/domain-errors';

/**
 * Everything else under `/api/0/`: sentry-cli commands this server does not serve (debug files,
 * commits, monitors, …) get a 404 that says so, in the `detail` sentry-cli prints, rather than a
 * bare "not found". Registered after the routes it stands behind.
 */
@ApiExcludeController()
@Controller('api/0')
export class SentryApiFallbackController {
  @All('*path')
  unsupported(@Req() request: Request): never {
    throw new NotFoundError(
      `${request.method} ${request.path} is not part of this server's Sentry-compatible API, which serves ` +
        'source map uploads (sentry-cli sourcemaps upload) and releases (releases new, finalize, deploys, list, info)',
    );
  }
}
