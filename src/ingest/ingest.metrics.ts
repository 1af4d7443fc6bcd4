import { Injectable } from '@nestjs/common';

/** In-process counters of this instance, exported by GET /metrics (Prometheus sums across instances). */
@Injectable()
export class IngestMetrics {
  acceptedEnvelopes = 0;
  acceptedEvents = 0;
  /** Events an inbound filter dropped (answered 200, not queued). */
  filteredEvents = 0;
  /** Digest jobs written: fewer than the events when concurrent requests share jobs. */
  digestJobsEnqueued = 0;
  /** Rejected requests by HTTP status. */
  readonly rejected = new Map<number, number>();

  reject(status: number): void {
    this.rejected.set(status, (this.rejected.get(status) ?? 0) + 1);
  }
}
