import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ACTIVITY_KINDS, ActivityKind } from '../issue-activity.repository';

@ApiSchema({ description: 'Who did something: an account, or (id and email null) an operator token.' })
export class ActivityActorView {
  @ApiProperty({ type: Number, nullable: true })
  id: number | null;

  @ApiProperty({ type: String, nullable: true })
  email: string | null;

  @ApiProperty()
  name: string;
}

@ApiSchema({ description: "One entry of an issue's activity log; the first is always `first_seen`." })
export class ActivityView {
  @ApiProperty()
  id: string;

  @ApiProperty({ enum: [...ACTIVITY_KINDS, 'first_seen'] })
  kind: ActivityKind | 'first_seen';

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The details of the change.' })
  data: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({
    type: () => ActivityActorView,
    nullable: true,
    description: 'Who did it; null when the tracker did (an event arrived, a snooze ended).',
  })
  actor: ActivityActorView | null;
}
