import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ALERT_STATUSES, AlertStatus } from '../alert-history.entity';
import { ALERT_TYPES, AlertType } from '../alert-rule.entity';

@ApiSchema({
  description:
    "An alert rule: which of a project's issue changes, or releases' health, notify which channels.",
})
export class RuleView {
  @ApiProperty()
  id: number;

  @ApiProperty()
  project_id: number;

  @ApiProperty({ example: 'New issues to ops' })
  name: string;

  @ApiProperty({ enum: ALERT_TYPES })
  alert_type: AlertType;

  @ApiProperty()
  is_enabled: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Issue alerts: `environments` and `min_level` filters (empty: every event matches); monitor ' +
      'alerts also `monitor_kinds`. ' +
      '`release_health`: `metric`, `threshold`, `window_hours`, `min_sessions`, optional `environments`.',
  })
  conditions: Record<string, unknown>;

  @ApiProperty()
  cooldown_minutes: number;

  @ApiProperty({ description: "Also e-mails the issue's assignee." })
  notify_assignee: boolean;

  @ApiProperty({ type: [Number] })
  channel_ids: number[];

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

@ApiSchema({ description: 'A notification an alert rule sent, or tried to.' })
export class AlertHistoryView {
  @ApiProperty()
  id: number;

  @ApiProperty({ enum: ALERT_TYPES })
  alert_type: AlertType;

  @ApiProperty({ example: 'webhook' })
  channel_type: string;

  @ApiProperty()
  channel_name: string;

  @ApiProperty({ enum: ALERT_STATUSES })
  status: AlertStatus;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;

  @ApiProperty({ type: Number, nullable: true })
  issue_id: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: '`<SLUG>-<n>` of the issue, for people; null once the issue is deleted.',
  })
  issue_short_id: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The release a `release_health` alert is about; null for issue alerts.',
  })
  release: string | null;

  @ApiProperty({ type: Number, nullable: true })
  rule_id: number | null;

  @ApiProperty({ type: Number, nullable: true })
  channel_id: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  sent_at: string | null;
}
