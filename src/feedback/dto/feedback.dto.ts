import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination';

export const FEEDBACK_STATUSES = ['unresolved', 'resolved'] as const;
/** Issues per request of counts: a page of the issue list, at most. */
export const MAX_COUNTED_ISSUES = 1000;

export class ListFeedbackQuery extends PageQueryDto {
  @ApiPropertyOptional({ enum: FEEDBACK_STATUSES, description: 'only feedback of this status' })
  @IsOptional()
  @IsIn(FEEDBACK_STATUSES, { message: `status must be one of ${FEEDBACK_STATUSES.join(', ')}` })
  status?: (typeof FEEDBACK_STATUSES)[number];

  @ApiPropertyOptional({ description: 'text found in the message, the name, the e-mail or the page URL' })
  @IsOptional()
  @IsString({ message: 'query must be a string' })
  @MaxLength(200, { message: 'query must be at most 200 characters' })
  query?: string;
}

export class UpdateFeedbackDto {
  @ApiProperty({ enum: FEEDBACK_STATUSES })
  @IsIn(FEEDBACK_STATUSES, { message: `status must be one of ${FEEDBACK_STATUSES.join(', ')}` })
  status: (typeof FEEDBACK_STATUSES)[number];
}

export class FeedbackCountsQuery {
  @ApiProperty({
    description: 'the ids of the issues shown, comma-separated',
    example: '12,13,14',
    type: String,
  })
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value !== '' ? value.split(',').map((part) => Number(part)) : value,
  )
  @IsArray({ message: 'issue_ids must be a comma-separated list of issue ids' })
  @ArrayMaxSize(MAX_COUNTED_ISSUES, { message: `issue_ids must list at most ${MAX_COUNTED_ISSUES} issues` })
  @IsInt({ each: true, message: 'issue_ids must be a comma-separated list of issue ids' })
  @Min(1, { each: true, message: 'issue_ids must be a comma-separated list of issue ids' })
  @Max(2_147_483_647, { each: true, message: 'issue_ids must be a comma-separated list of issue ids' })
  issue_ids: number[];
}
