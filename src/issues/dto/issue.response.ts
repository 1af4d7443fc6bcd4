import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiSchema,
  getSchemaPath,
} from '@nestjs/swagger';
import { ErrorResponse, PageOf } from '../../http/api-responses';
import { ISSUE_STATES, IssueKind, IssueState } from '../issue.entity';

@ApiSchema({ description: 'A member an issue is assigned to.' })
export class UserAssignee {
  @ApiProperty({ enum: ['user'] })
  type: 'user';

  @ApiProperty()
  id: number;

  @ApiProperty()
  email: string;

  @ApiProperty()
  name: string;
}

@ApiSchema({ description: 'A team an issue is assigned to.' })
export class TeamAssignee {
  @ApiProperty({ enum: ['team'] })
  type: 'team';

  @ApiProperty()
  id: number;

  @ApiProperty()
  slug: string;

  @ApiProperty()
  name: string;
}

export type IssueAssignee = UserAssignee | TeamAssignee;

@ApiSchema({ description: 'The monitor whose failures opened an issue, in one of its environments.' })
export class IssueMonitor {
  @ApiProperty({ enum: ['cron', 'uptime'] })
  kind: 'cron' | 'uptime';

  @ApiProperty({ description: 'The cron or uptime monitor’s id.' })
  monitor_id: number;

  @ApiProperty()
  environment: string;
}

@ApiSchema({ description: 'An issue: events grouped as one problem, with its counts and triage.' })
@ApiExtraModels(UserAssignee, TeamAssignee)
export class IssueView {
  @ApiProperty()
  id: number;

  @ApiProperty()
  project_id: number;

  @ApiProperty({ example: 'WEB-SHOP-12' })
  short_id: string;

  @ApiProperty({ example: 'TypeError' })
  type: string;

  @ApiProperty()
  message: string;

  @ApiProperty({ description: 'Where it happened: the function or route.' })
  culprit: string;

  @ApiProperty({ example: 'error' })
  level: string;

  @ApiProperty({
    enum: ['error', 'cron', 'uptime'],
    description:
      "What opened it: events (`error`), or a cron or uptime monitor's failures (search `kind:cron`).",
  })
  kind: IssueKind;

  @ApiProperty({
    type: IssueMonitor,
    nullable: true,
    description: 'For a monitor’s issue, the monitor and environment; its event count counts failures.',
  })
  monitor: IssueMonitor | null;

  @ApiProperty({ enum: ISSUE_STATES })
  state: IssueState;

  @ApiProperty()
  event_count: number;

  @ApiProperty({ description: 'Distinct users among its events.' })
  user_count: number;

  @ApiProperty({ format: 'date-time' })
  first_seen: string;

  @ApiProperty({ format: 'date-time' })
  last_seen: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  resolved_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_regressed_at: string | null;

  @ApiProperty()
  regression_count: number;

  @ApiProperty({ type: String, nullable: true })
  first_release: string | null;

  @ApiProperty({ type: String, nullable: true })
  last_release: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'When resolved in a release: `next_release` or the version.',
  })
  resolved_in: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'On a single issue resolved in the next release: that release, once the project has one newer than ' +
      'its newest at the time of resolution; null until then.',
  })
  next_release?: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Muted until this time.',
  })
  mute_until: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Muted until this many more events.' })
  mute_until_count: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Muted until this many more users.' })
  mute_until_users: number | null;

  @ApiPropertyOptional({
    type: [Number],
    description: 'With `stats=24h` in a list: events per hour over the last 24 hours, oldest first.',
  })
  stats_24h?: number[];

  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(UserAssignee) }, { $ref: getSchemaPath(TeamAssignee) }],
    nullable: true,
    description: 'Who is on it: a member or a team, or null.',
  })
  assignee: IssueAssignee | null;
}

@ApiSchema({ description: "A page of a project's issues, with how many match." })
export class IssuePage extends PageOf(IssueView) {
  @ApiProperty({ description: 'Issues that match: exact up to 10,000, then estimated.' })
  total: number;

  @ApiProperty()
  total_is_estimate: boolean;
}

@ApiSchema({ description: 'How many issues a bulk change changed.' })
export class BulkUpdateResult {
  @ApiProperty()
  updated: number;
}

@ApiSchema({
  description:
    'The issue was merged into another: `Location` points to the same request there (a 308 keeps the method).',
})
export class IssueMoved extends ErrorResponse {
  @ApiProperty({ description: 'The issue it was merged into.' })
  merged_into_id: number;
}

/** The 308 of a route under /api/issues/{id} when that issue was merged into another. */
export const ApiIssueMoved = () =>
  ApiResponse({
    status: 308,
    type: IssueMoved,
    description: 'The issue was merged into another; `Location` is the same request there.',
    headers: {
      Location: { description: 'The same path under the surviving issue.', schema: { type: 'string' } },
    },
  });
