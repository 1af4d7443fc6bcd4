import { HttpException } from '@nestjs/common';
import type { OutcomeCount } from '../outcomes/envelope-outcomes';

/** An HttpException that also carries response headers (429's Retry-After and X-Sentry-Rate-Limits). */
export class IngestRejection extends HttpException {
  constructor(
    message: string,
    status: number,
    readonly headers: Record<string, string>,
    /** The reason its `rate_limited` outcome is counted with, when not the fixed rate limit's. */
    readonly outcomeReason?: string,
    /** The outcomes it counts, when not the one `rate_limited` of its first refused item. */
    readonly outcomes?: OutcomeCount[],
  ) {
    super(message, status);
  }
}
