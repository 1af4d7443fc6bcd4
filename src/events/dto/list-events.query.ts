import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { MAX_QUERY_LENGTH } from '../../search/query-language';

export class ListEventsQuery extends PageQueryDto {
  @ApiPropertyOptional({
    description: 'e.g. `environment:production !release:1.0 region:eu` (see docs/issues.md, Triage: Events)',
  })
  @IsOptional()
  @IsString({ message: 'query must be a string' })
  @MaxLength(MAX_QUERY_LENGTH, { message: `query must be at most ${MAX_QUERY_LENGTH} characters` })
  query?: string;
}
