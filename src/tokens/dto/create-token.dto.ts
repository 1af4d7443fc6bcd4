import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

export class CreateTokenDto {
  @ApiProperty({ example: 'ci', maxLength: 200 })
  @IsString()
  @MaxLength(200)
  description: string;

  @ApiPropertyOptional({ description: 'only GET and HEAD requests', default: false })
  @IsOptional()
  @IsBoolean()
  read_only?: boolean;

  @ApiPropertyOptional({
    type: [Number],
    description: 'limit it to these projects (default: every project you see)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'project_ids must name at least one project (leave it out for all)' })
  @ArrayMaxSize(1000)
  @IsInt({ each: true, message: 'project_ids must be project ids' })
  @Min(1, { each: true, message: 'project_ids must be project ids' })
  @Max(2_147_483_647, { each: true, message: 'project_ids must be project ids' })
  project_ids?: number[];
}
