import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { InvalidInputError } from '../../common/domain-errors';
import { ISSUE_STATES, IssueState } from '../issue.entity';
import type { IssueChange } from '../issue-triage.service';
import { MAX_QUERY_LENGTH } from '../../search/query-language';

const MAX_INT = 2_147_483_647;

/**
 * PATCH /api/issues/{id}: a state, and with it how long it holds (see docs/issues.md, Triage); an assignee;
 * or both.
 */
export class UpdateIssueDto {
  @ApiPropertyOptional({ enum: ISSUE_STATES })
  @IsOptional()
  @IsIn(ISSUE_STATES, { message: `state must be one of ${ISSUE_STATES.join(', ')}` })
  state?: IssueState;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: '"user:<id>", "team:<id>", a member\'s e-mail or "#<team slug>"; null unassigns',
  })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsString({ message: 'assignee must be a string or null' })
  @MaxLength(320, { message: 'assignee is too long' })
  assignee?: string | null;

  @ApiPropertyOptional({ description: 'with state "resolved": "next_release" or a release version' })
  @IsOptional()
  @IsString({ message: 'resolved_in must be a string' })
  @Length(1, 200, { message: 'resolved_in must be "next_release" or a version of 1 to 200 characters' })
  resolved_in?: string;

  @ApiPropertyOptional({ description: 'with state "muted": until this time (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'mute_until must be an ISO 8601 time' })
  mute_until?: string;

  @ApiPropertyOptional({ description: 'with state "muted": until this many more events' })
  @IsOptional()
  @IsInt({ message: 'mute_until_count must be a positive integer' })
  @Min(1, { message: 'mute_until_count must be a positive integer' })
  @Max(MAX_INT)
  mute_until_count?: number;

  @ApiPropertyOptional({ description: 'with state "muted": until this many more users are affected' })
  @IsOptional()
  @IsInt({ message: 'mute_until_users must be a positive integer' })
  @Min(1, { message: 'mute_until_users must be a positive integer' })
  @Max(MAX_INT)
  mute_until_users?: number;
}

/** PATCH /api/projects/{id}/issues: the same change, for the issues given by id or by a search. */
export class BulkUpdateIssuesDto extends UpdateIssueDto {
  @ApiPropertyOptional({ type: [Number], description: 'issue ids of this project (or give query)' })
  @IsOptional()
  @IsArray({ message: 'ids must be an array of issue ids' })
  @ArrayMinSize(1, { message: 'ids must not be empty' })
  @ArrayMaxSize(1000, { message: 'ids holds at most 1000 issue ids; use query for more' })
  @Type(() => Number)
  @IsInt({ each: true, message: 'ids must be an array of issue ids' })
  @Min(1, { each: true, message: 'ids must be an array of issue ids' })
  @Max(MAX_INT, { each: true, message: 'ids must be an array of issue ids' })
  ids?: number[];

  @ApiPropertyOptional({
    description: 'a search (see docs/api.md, Searching issues) selecting the issues (or give ids)',
  })
  @IsOptional()
  @IsString({ message: 'query must be a string' })
  @MaxLength(MAX_QUERY_LENGTH)
  query?: string;
}

/** The state change a body asks for, if any. */
export function issueChangeOf(body: UpdateIssueDto): IssueChange | undefined {
  if (body.state === undefined) {
    const conditions = [body.resolved_in, body.mute_until, body.mute_until_count, body.mute_until_users];
    if (conditions.some((value) => value !== undefined))
      throw new InvalidInputError('resolved_in and the mute_until conditions go with a state');
    return undefined;
  }
  return {
    state: body.state,
    resolvedIn: body.resolved_in,
    muteUntil: body.mute_until === undefined ? undefined : new Date(body.mute_until),
    muteUntilCount: body.mute_until_count,
    muteUntilUsers: body.mute_until_users,
  };
}
