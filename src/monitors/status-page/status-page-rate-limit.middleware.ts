import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { StatusPageRateLimit } from './status-page-rate-limit';

/**
 * Limits the public status page routes per client address: `GET /api/status/{slug}` and the page
 * `/status/{slug}` the dashboard serves. The address is Express' `request.ip`, which follows
 * TRUST_PROXY (as sign-in throttling's does). Over the limit: 429 with `{ error }` and Retry-After.
 */
@Injectable()
export class StatusPageRateLimitMiddleware implements NestMiddleware {
  constructor(private readonly limit: StatusPageRateLimit) {}

  use(request: Request, response: Response, next: NextFunction): void {
    this.limit.take(request.ip).then(
      (verdict) => {
        if (verdict.allowed) return next();
        response
          .status(429)
          .setHeader('Retry-After', String(verdict.retryAfterSeconds))
          .json({ error: 'too many requests for status pages from this address, try again later' });
      },
      (error: unknown) => next(error),
    );
  }
}
