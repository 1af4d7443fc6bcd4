import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { PageQueryDto } from '../common/pagination';

export class ListBundlesQuery extends PageQueryDto {
  @ApiPropertyOptional({ description: 'only the bundles uploaded for this release' })
  @IsOptional()
  @IsString({ message: 'release must be a string' })
  @Length(1, 200, { message: 'release must be 1 to 200 characters' })
  release?: string;
}
