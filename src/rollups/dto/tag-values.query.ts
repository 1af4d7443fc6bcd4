import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export class TagValuesQuery {
  @ApiPropertyOptional({ description: 'only the values that start with this text (any letter case)' })
  @IsOptional()
  @IsString({ message: 'query must be a string' })
  @MaxLength(200, { message: 'query must be at most 200 characters' })
  query?: string;
}
