import { MonitorIssueView } from '../../incidents/dto/monitor-issue.response';
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { UPTIME_METHODS } from '../uptime-monitor-rules';

export class ExpectedStatusView {
  @ApiProperty()
  min: number;

  @ApiProperty()
  max: number;
}

@ApiSchema({ description: 'Uptime in percent of checks that passed; null when no check fell in the window.' })
export class UptimePercents {
  @ApiProperty({ type: Number, nullable: true, description: 'the last 24 hours, to the check' })
  '24h': number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'from the start of the hour 7 days ago' })
  '7d': number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'from the start of the hour 30 days ago' })
  '30d': number | null;
}

@ApiSchema({ description: 'An uptime monitor: what it checks, how often, and what it found.' })
export class UptimeMonitorView {
  @ApiProperty()
  id: number;

  @ApiProperty()
  project_id: number;

  @ApiProperty()
  name: string;

  @ApiProperty()
  url: string;

  @ApiProperty({ enum: UPTIME_METHODS })
  method: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Authorization: 'Bear...****' },
    description: 'request headers, each value masked (`Bear...****`; `****` under 12 characters)',
  })
  headers: Record<string, string>;

  @ApiProperty({ type: String, nullable: true })
  body: string | null;

  @ApiProperty({ type: ExpectedStatusView })
  expected_status: ExpectedStatusView;

  @ApiProperty({ type: String, nullable: true })
  body_contains: string | null;

  @ApiProperty()
  interval_seconds: number;

  @ApiProperty()
  timeout_seconds: number;

  @ApiProperty()
  tls_expiry_days: number;

  @ApiProperty()
  failure_threshold: number;

  @ApiProperty()
  recovery_threshold: number;

  @ApiProperty()
  muted: boolean;

  @ApiProperty({ enum: ['up', 'down', 'pending'], description: 'pending: not checked yet' })
  status: 'up' | 'down' | 'pending';

  @ApiProperty({ description: 'failures in a row (0 after a success)' })
  consecutive_failures: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_checked_at: string | null;

  @ApiProperty({ type: Number, nullable: true })
  last_response_ms: number | null;

  @ApiProperty({ type: Number, nullable: true })
  last_status_code: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'why the last check failed' })
  last_error: string | null;

  @ApiProperty({ type: String, format: 'date-time', description: 'when the next check is due' })
  next_check_at: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'the TLS certificate last seen',
  })
  tls_expires_at: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'the open issue of this monitor' })
  issue_id: number | null;

  @ApiProperty({
    type: () => MonitorIssueView,
    nullable: true,
    description: 'Its issue: the open one, or the last incident once resolved (null before the first).',
  })
  issue: MonitorIssueView | null;

  @ApiProperty({ type: UptimePercents })
  uptime: UptimePercents;

  @ApiProperty({
    type: 'array',
    items: { type: 'number', nullable: true },
    description:
      'mean response time (ms) in each of the last 24 UTC hours, the current hour last; null for an hour without a timed check',
  })
  response_ms_24h: (number | null)[];

  @ApiProperty({ type: String, format: 'date-time' })
  created_at: string;
}

@ApiSchema({
  description:
    'One bucket of the response-time series, every bucket of the period there (24h: 30 minutes, 7d: an hour, 30d: 6 hours), empty ones with no checks.',
})
export class UptimeCheckView {
  @ApiProperty({ type: String, format: 'date-time', description: 'the start of the bucket' })
  t: string;

  @ApiProperty({ description: 'no check of the bucket failed (true for an empty one)' })
  ok: boolean;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'the mean response time; null without a timed check',
  })
  response_ms: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'always null (a bucket has many); kept for older clients',
  })
  status_code: number | null;

  @ApiProperty({ type: String, nullable: true, description: '"11 of 20 checks failed", or null' })
  error: string | null;

  @ApiProperty({ description: 'checks in the bucket (0: no check ran then)' })
  checks: number;

  @ApiProperty({ description: 'failed checks in the bucket' })
  failures: number;
}

@ApiSchema({
  description:
    'A failed check, at its own time (`until` null), or past the raw checks kept, an hour that had failed checks (`at` to `until`).',
})
export class FailedCheckView {
  @ApiProperty({ type: String, format: 'date-time', description: 'when checked, or the start of the hour' })
  at: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'the end of the hour; null for a check',
  })
  until: string | null;

  @ApiProperty({ description: 'checks: 1 for a check' })
  checks: number;

  @ApiProperty({ description: 'failed checks: 1 for a check' })
  failures: number;

  @ApiProperty({ type: Number, nullable: true })
  status_code: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'what failed, or "11 of 20 checks failed" for an hour',
  })
  error: string | null;

  @ApiProperty({ type: Number, nullable: true, description: "the check's, or the hour's mean" })
  response_ms: number | null;
}
