import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { ISSUE_STATES, IssueState } from '../issue.entity';
import { MAX_QUERY_LENGTH } from '../../search/query-language';
import { ISSUE_SORTS, IssueSort } from '../search/issue-search';
import { ISSUE_LIST_STATS, IssueListStats, MAX_LIST_OFFSET } from '../issues.service';

export class ListIssuesQuery extends PageQueryDto {
  @ApiPropertyOptional({ enum: ISSUE_STATES })
  @IsOptional()
  @IsIn(ISSUE_STATES, { message: `state must be one of ${ISSUE_STATES.join(', ')}` })
  state?: IssueState;

  @ApiPropertyOptional({
    description:
      'Search, e.g. `is:unresolved level:error environment:production !release:1.0 times_seen:>100 TypeError` (see docs/api.md, Searching issues)',
  })
  @IsOptional()
  @IsString({ message: 'query must be a string' })
  @MaxLength(MAX_QUERY_LENGTH, { message: `query must be at most ${MAX_QUERY_LENGTH} characters` })
  query?: string;

  @ApiPropertyOptional({
    description: 'only the issues with events in this environment, each with its count of them there',
  })
  @IsOptional()
  @IsString({ message: 'environment must be a string' })
  @Length(1, 200, { message: 'environment must be 1 to 200 characters' })
  environment?: string;

  @ApiPropertyOptional({ enum: ISSUE_SORTS, default: 'last_seen' })
  @IsOptional()
  @IsIn(ISSUE_SORTS, { message: `sort must be one of ${ISSUE_SORTS.join(', ')}` })
  sort?: IssueSort;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_LIST_OFFSET,
    description: 'start this many issues down the list (a page jump); not with `cursor`',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'offset must be an integer' })
  @Min(0, { message: 'offset must be 0 or more' })
  @Max(MAX_LIST_OFFSET, { message: `offset must be at most ${MAX_LIST_OFFSET}` })
  offset?: number;

  @ApiPropertyOptional({
    enum: ISSUE_LIST_STATS,
    description:
      '`24h` adds `stats_24h` to each issue: its events per hour over the last 24 hours, oldest first',
  })
  @IsOptional()
  @IsIn(ISSUE_LIST_STATS, { message: `stats must be one of ${ISSUE_LIST_STATS.join(', ')}` })
  stats?: IssueListStats;
}
