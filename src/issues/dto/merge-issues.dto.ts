import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, Max, Min } from 'class-validator';
import { MAX_MERGED } from '../issue-merge.service';

export class MergeIssuesDto {
  @ApiProperty({ type: [Number], description: 'issues of the same project to fold into this one' })
  @IsArray({ message: 'ids must be an array of issue ids' })
  @ArrayMinSize(1, { message: 'ids must not be empty' })
  @ArrayMaxSize(MAX_MERGED, { message: `at most ${MAX_MERGED} issues can be merged at once` })
  @IsInt({ each: true, message: 'ids must be an array of issue ids' })
  @Min(1, { each: true, message: 'ids must be an array of issue ids' })
  @Max(2_147_483_647, { each: true, message: 'ids must be an array of issue ids' })
  ids: number[];
}
