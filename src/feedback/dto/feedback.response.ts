import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { FEEDBACK_STATUSES } from './feedback.dto';

@ApiSchema({
  description:
    'One user feedback, from the feedback widget, captureFeedback, a user report or the crash-report dialog.',
})
export class FeedbackView {
  @ApiProperty()
  id: number;

  @ApiProperty()
  project_id: number;

  @ApiProperty({ description: "The feedback's own event id (32 hex digits): its attachments carry it." })
  event_id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The event the user reacted to (32 hex digits).',
  })
  associated_event_id: string | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: "The associated event's issue, once that event is stored.",
  })
  issue_id: number | null;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;

  @ApiProperty({ type: String, nullable: true })
  contact_email: string | null;

  @ApiProperty()
  message: string;

  @ApiProperty({ type: String, nullable: true })
  url: string | null;

  @ApiProperty({ example: 'widget', description: '`widget`, `api`, `user_report` or `crash_report_dialog`.' })
  source: string;

  @ApiProperty({ type: String, nullable: true })
  environment: string | null;

  @ApiProperty({ type: String, nullable: true })
  release: string | null;

  @ApiProperty({ enum: FEEDBACK_STATUSES })
  status: (typeof FEEDBACK_STATUSES)[number];

  @ApiProperty({ format: 'date-time' })
  received_at: string;
}

@ApiSchema({ description: 'The unresolved feedback of one issue (and the issues merged into it).' })
export class FeedbackCountView {
  @ApiProperty()
  issue_id: number;

  @ApiProperty()
  unresolved: number;
}
