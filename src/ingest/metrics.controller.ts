import { Controller, Get, Headers, Res, UnauthorizedException } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../http/api-responses';
import { timingSafeEqual } from 'node:crypto';
import { Public } from '../common/public.decorator';
import { AppConfig } from '../config/app-config';
import { ReadinessService } from '../health/readiness.service';
import { FAILED_JOB_CLASSES } from '../jobs/failed-reason';
import { QueueMonitor } from '../jobs/queue-monitor';
import { IngestMetrics } from './ingest.metrics';
import { OutcomeCounter } from '../outcomes/outcome-counter';

function metric(
  name: string,
  type: 'counter' | 'gauge',
  help: string,
  samples: [string, number][],
): string[] {
  return [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} ${type}`,
    ...samples.map(([labels, value]) => `${name}${labels} ${value}`),
  ];
}

/**
 * Prometheus text exposition. Open like the health endpoints by default (it reveals only counts);
 * with METRICS_TOKEN set, scrapers must send `Authorization: Bearer <METRICS_TOKEN>`.
 */
@ApiTags('health')
@Public()
@Controller('metrics')
export class MetricsController {
  private readonly token: Buffer | undefined;

  constructor(
    private readonly metrics: IngestMetrics,
    private readonly queues: QueueMonitor,
    private readonly readiness: ReadinessService,
    private readonly outcomes: OutcomeCounter,
    config: AppConfig,
  ) {
    this.token = config.METRICS_TOKEN ? Buffer.from(`Bearer ${config.METRICS_TOKEN}`) : undefined;
  }

  @Get()
  @ApiOkResponse({
    description: 'Prometheus text exposition (version 0.0.4).',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiErrors([401, 'METRICS_TOKEN is set and the request does not send it.'])
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    this.checkToken(authorization);
    // Set here, not with @Header: a refusal must stay the usual JSON error.
    response.setHeader('Content-Type', 'text/plain; version=0.0.4; charset=utf-8');
    const lines = [
      ...metric(
        'error_tracker_ingest_envelopes_accepted_total',
        'counter',
        'Envelopes accepted by this instance.',
        [['', this.metrics.acceptedEnvelopes]],
      ),
      ...metric(
        'error_tracker_ingest_events_accepted_total',
        'counter',
        'Events queued for the digest by this instance.',
        [['', this.metrics.acceptedEvents]],
      ),
      ...metric(
        'error_tracker_ingest_events_filtered_total',
        'counter',
        'Events an inbound filter dropped on this instance (by filter: error_tracker_outcomes_total{outcome="filtered"}).',
        [['', this.metrics.filteredEvents]],
      ),
      ...metric(
        'error_tracker_digest_jobs_enqueued_total',
        'counter',
        'Digest jobs written by this instance (concurrent requests share jobs, up to 10 events each).',
        [['', this.metrics.digestJobsEnqueued]],
      ),
      ...metric(
        'error_tracker_ingest_envelopes_rejected_total',
        'counter',
        'Ingest requests rejected by this instance, by HTTP status.',
        [...this.metrics.rejected.entries()]
          .sort(([a], [b]) => a - b)
          .map(([status, count]): [string, number] => [`{status="${status}"}`, count]),
      ),
      ...metric(
        'error_tracker_outcomes_total',
        'counter',
        'Data this instance dropped at ingest or SDKs reported discarding, by outcome, category and reason (accepted errors: error_tracker_ingest_events_accepted_total).',
        [...this.outcomes.totals()].map(([labels, count]): [string, number] => {
          const [outcome, category, reason] = labels.split(',');
          return [`{outcome="${outcome}",category="${category}",reason="${reason}"}`, count];
        }),
      ),
    ];
    const [{ view, queues }, failedByClass] = await Promise.all([
      this.readiness.check(),
      this.queues.failedByClass(),
    ]);
    const up = (ok: boolean): [string, number][] => [['', ok ? 1 : 0]];
    lines.push(
      ...metric(
        'error_tracker_database_writable',
        'gauge',
        "PostgreSQL took this instance's write probe (an upsert of one row): 1, or 0 when it refused or did not answer.",
        up(view.checks.database_writes.status === 'ok'),
      ),
      ...metric(
        'error_tracker_redis_writable',
        'gauge',
        "Redis took this instance's write probe: 1, or 0 when it refused (OOM, READONLY, MISCONF) or did not answer.",
        up(view.checks.redis_writes.status === 'ok'),
      ),
      ...metric(
        'error_tracker_degraded',
        'gauge',
        '1 while /health/ready reports "degraded" or cannot reach a dependency, 0 when it reports "ok".',
        up(view.status !== 'ok' || view.database !== 'connected' || view.redis !== 'connected'),
      ),
    );
    if (failedByClass !== undefined) {
      lines.push(
        ...metric(
          'error_tracker_jobs_failed_by_class',
          'gauge',
          'Jobs in the failed set, by queue and class of error (invalid, data, unavailable, conflict, unknown, stalled).',
          Object.entries(failedByClass).flatMap(([queue, counts]) =>
            FAILED_JOB_CLASSES.map((name): [string, number] => [
              `{queue="${queue}",class="${name}"}`,
              counts[name],
            ]),
          ),
        ),
      );
    }
    if (queues !== undefined) {
      lines.push(
        ...metric(
          'error_tracker_digest_backlog',
          'gauge',
          'Digest jobs (of one or more events) waiting, active or delayed (shared by all instances).',
          [['', queues.digestBacklog]],
        ),
        ...metric(
          'error_tracker_jobs_failed',
          'gauge',
          'Jobs in the failed set, by queue (see jobs:failed).',
          [
            ['{queue="digest"}', queues.failed.digest],
            ['{queue="alerts"}', queues.failed.alerts],
          ],
        ),
        ...metric('error_tracker_workers', 'gauge', 'Worker processes that reported in the last 30 s.', [
          ['', queues.workers.length],
        ]),
        ...metric(
          'error_tracker_digest_last_job_timestamp_seconds',
          'gauge',
          'When a worker last took a digest job (Unix time; 0 when none has since they started).',
          [['', queues.digestLastJobAt ? Math.floor(Date.parse(queues.digestLastJobAt) / 1000) : 0]],
        ),
        ...metric(
          'error_tracker_digest_oldest_waiting_seconds',
          'gauge',
          'How long the oldest digest job not yet taken by a worker has waited (0 when none waits).',
          [['', Math.floor(queues.digestOldestWaitingMs / 1000)]],
        ),
        ...metric(
          'error_tracker_digest_paused_workers',
          'gauge',
          'Worker processes whose digest waits for a database that refuses work.',
          [['', queues.workers.filter((worker) => worker.digest_paused).length]],
        ),
      );
    }
    return `${lines.join('\n')}\n`;
  }

  private checkToken(authorization: string | undefined): void {
    if (!this.token) return;
    const given = Buffer.from(authorization ?? '');
    if (given.length !== this.token.length || !timingSafeEqual(given, this.token)) {
      throw new UnauthorizedException('metrics need "Authorization: Bearer <METRICS_TOKEN>"');
    }
  }
}
