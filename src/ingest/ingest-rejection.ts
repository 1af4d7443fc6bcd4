import { HttpException } from '@nestjs/common';

/** An HttpException that also carries response headers (429's Retry-After and X-Sentry-Rate-Limits). */
export class IngestRejection extends HttpException {
  constructor(
    message: string,
    status: number,
    readonly headers: Record<string, string>,
    /** The reason its `rate_limited` outcome is counted with, when not the fixed rate limit's. */
    readonly outcomeReason?: string,
  ) {
    super(message, status);
  }
}
