import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiOpenSchema } from '../../http/api-responses';

@ApiSchema({ description: "Who an event's SDK said the user was: its id and e-mail." })
export class EventUserSummary {
  @ApiProperty({ type: String, nullable: true })
  id: string | null;

  @ApiProperty({ type: String, nullable: true })
  email: string | null;
}

@ApiSchema({ description: "An event in a list of an issue's events." })
export class EventListItem {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  issue_id: number;

  @ApiProperty({ format: 'date-time', description: 'When it happened, as its SDK said.' })
  timestamp: string;

  @ApiProperty({ format: 'date-time' })
  received_at: string;

  @ApiProperty({ example: 'error' })
  level: string;

  @ApiProperty({ type: String, nullable: true })
  environment: string | null;

  @ApiProperty({ type: String, nullable: true })
  release: string | null;

  @ApiProperty({ type: () => EventUserSummary, nullable: true })
  user: EventUserSummary | null;
}

@ApiOpenSchema('The user as the SDK sent it: every field, `id` and `email` always there.')
export class SentEventUser {
  [field: string]: unknown;

  @ApiProperty({ type: String, nullable: true })
  id: string | null;

  @ApiProperty({ type: String, nullable: true })
  email: string | null;
}

/**
 * An event in full: its payload, with the list item's columns, the user as the SDK sent it (every
 * field), and its neighbours in its issue (by timestamp, then id): `previous_event_id` the one
 * before (older), `next_event_id` the one after (newer), null at either end.
 */
@ApiOpenSchema(
  'An event in full: its payload as stored (`exception`, `breadcrumbs`, `contexts`, `tags`, `request`, `sdk`, … as the SDK sent them, normalised, with stack frames resolved through source maps), with the columns of the list and its neighbours in its issue.',
)
export class FullEventView {
  [field: string]: unknown;

  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  issue_id: number;

  @ApiProperty()
  project_id: number;

  @ApiProperty({ format: 'date-time' })
  timestamp: string;

  @ApiProperty({ format: 'date-time' })
  received_at: string;

  @ApiProperty({ example: 'error' })
  level: string;

  @ApiProperty({ type: String, nullable: true })
  environment: string | null;

  @ApiProperty({ type: String, nullable: true })
  release: string | null;

  @ApiProperty({ type: () => SentEventUser, nullable: true })
  user: SentEventUser | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The event just before it (older) in its issue, by timestamp then id; null for the oldest.',
  })
  previous_event_id: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The event just after it (newer) in its issue; null for the newest.',
  })
  next_event_id: string | null;
}
