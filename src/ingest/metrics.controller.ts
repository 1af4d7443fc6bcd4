import { Controller, Get, Header } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '../common/public.decorator';
import { DigestBacklog } from './digest-backlog';
import { IngestMetrics } from './ingest.metrics';

/**
 * Prometheus text exposition. Public like the health endpoints (scrapers rarely carry tokens); it
 * reveals only counts. Restrict it at the reverse proxy if that matters.
 */
@ApiTags('health')
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: IngestMetrics,
    private readonly backlog: DigestBacklog,
  ) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    const lines = [
      '# HELP error_tracker_ingest_envelopes_accepted_total Envelopes accepted by this instance.',
      '# TYPE error_tracker_ingest_envelopes_accepted_total counter',
      `error_tracker_ingest_envelopes_accepted_total ${this.metrics.acceptedEnvelopes}`,
      '# HELP error_tracker_ingest_events_accepted_total Events queued for the digest by this instance.',
      '# TYPE error_tracker_ingest_events_accepted_total counter',
      `error_tracker_ingest_events_accepted_total ${this.metrics.acceptedEvents}`,
      '# HELP error_tracker_ingest_envelopes_rejected_total Ingest requests rejected by this instance, by HTTP status.',
      '# TYPE error_tracker_ingest_envelopes_rejected_total counter',
      ...[...this.metrics.rejected.entries()]
        .sort(([a], [b]) => a - b)
        .map(
          ([status, count]) => `error_tracker_ingest_envelopes_rejected_total{status="${status}"} ${count}`,
        ),
    ];
    const backlog = await this.backlog.count();
    if (backlog !== undefined) {
      lines.push(
        '# HELP error_tracker_digest_backlog Digest jobs waiting, active or delayed (shared by all instances).',
        '# TYPE error_tracker_digest_backlog gauge',
        `error_tracker_digest_backlog ${backlog}`,
      );
    }
    return `${lines.join('\n')}\n`;
  }
}
