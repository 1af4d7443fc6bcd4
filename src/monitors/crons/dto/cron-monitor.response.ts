import { MonitorIssueView } from '../../incidents/dto/monitor-issue.response';
import { ApiProperty, ApiSchema } from '@nestjs/swagger';

const STATUSES = ['ok', 'error', 'missed', 'timeout', 'in_progress', 'pending'];

export class CronScheduleView {
  @ApiProperty({ enum: ['crontab', 'interval'] })
  type: 'crontab' | 'interval';

  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }] })
  value: string | number;

  @ApiProperty({ required: false, enum: ['minute', 'hour', 'day', 'week', 'month', 'year'] })
  unit?: string;
}

export class MonitorEnvironmentView {
  @ApiProperty()
  environment: string;

  @ApiProperty({ enum: STATUSES })
  status: string;

  @ApiProperty({ type: String, nullable: true })
  last_check_in_at: string | null;

  @ApiProperty({ type: String, nullable: true })
  next_expected_at: string | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The open issue of this monitor and environment.',
  })
  issue_id: number | null;

  @ApiProperty({
    type: () => MonitorIssueView,
    nullable: true,
    description: 'Its issue: the open one, or the last incident once resolved (null before the first).',
  })
  issue: MonitorIssueView | null;

  @ApiProperty()
  consecutive_failures: number;
}

@ApiSchema({ description: 'A cron monitor and its state per environment.' })
export class MonitorView {
  @ApiProperty()
  id: number;

  @ApiProperty()
  slug: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  project_id: number;

  @ApiProperty({ type: CronScheduleView })
  schedule: CronScheduleView;

  @ApiProperty({ example: 'Every 5 minutes' })
  schedule_description: string;

  @ApiProperty()
  timezone: string;

  @ApiProperty({ description: 'Minutes.' })
  checkin_margin: number;

  @ApiProperty({ description: 'Minutes.' })
  max_runtime: number;

  @ApiProperty()
  failure_issue_threshold: number;

  @ApiProperty()
  recovery_threshold: number;

  @ApiProperty()
  muted: boolean;

  @ApiProperty({
    enum: STATUSES,
    description: 'The worst over its environments; pending before any check-in.',
  })
  status: string;

  @ApiProperty({ type: String, nullable: true })
  next_expected_at: string | null;

  @ApiProperty({ type: String, nullable: true })
  last_check_in_at: string | null;

  @ApiProperty()
  created_at: string;

  @ApiProperty({ type: [MonitorEnvironmentView] })
  environments: MonitorEnvironmentView[];
}

@ApiSchema({ description: 'One run of a cron monitor, as its check-ins told it, or as the clock marked it.' })
export class CheckInView {
  @ApiProperty({ description: 'The check_in_id (UUID).' })
  id: string;

  @ApiProperty()
  environment: string;

  @ApiProperty({ enum: ['in_progress', 'ok', 'error', 'missed', 'timeout'] })
  status: string;

  @ApiProperty({ type: Number, nullable: true })
  duration_ms: number | null;

  @ApiProperty({ type: String, nullable: true })
  release: string | null;

  @ApiProperty({ type: String, nullable: true })
  expected_at: string | null;

  @ApiProperty()
  created_at: string;

  @ApiProperty()
  updated_at: string;
}
