import { All, Controller, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { NotImplementedError } from '../common/domain-errors';
import { Requires } from '../access/route-access.decorator';

/**
 * Everything else under `/api/0/`: sentry-cli commands this server does not serve (debug files,
 * commits, monitors, …) get a 501 that says so, which sentry-cli prints (to a 404 it prints a
 * fixed "resource not found", or takes it for an empty list). Registered after the routes it
 * stands behind.
 */
@ApiExcludeController()
@Controller('api/0')
export class SentryApiFallbackController {
  @All('*path')
  @Requires('account')
  unsupported(@Req() request: Request): never {
    throw new NotImplementedError(
      `${request.method} ${request.path} is not part of this server's Sentry-compatible API, which serves ` +
        'source map uploads (sentry-cli sourcemaps upload) and releases (releases new, finalize, deploys, list, info)',
    );
  }
}
