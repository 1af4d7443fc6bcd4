import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';

export class ListAuditLogQuery extends PageQueryDto {
  @ApiPropertyOptional({ description: 'an action (member.role_change) or a family of them (member)' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z_]+(\.[a-z_]+)?$/, { message: 'action must look like member or member.role_change' })
  action?: string;

  @ApiPropertyOptional({ description: 'entries of this account' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'actor_id must be an integer' })
  @Min(1)
  @Max(2_147_483_647)
  actor_id?: number;

  @ApiPropertyOptional({ description: 'entries about this kind of thing: member, team, token, project, …' })
  @IsOptional()
  @IsString()
  @Length(1, 50)
  target_type?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 100)
  target_id?: string;

  @ApiPropertyOptional({ description: 'ISO 8601; entries at or after it' })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'since must be an ISO 8601 date' })
  since?: Date;

  @ApiPropertyOptional({ description: 'ISO 8601; entries before it' })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'until must be an ISO 8601 date' })
  until?: Date;
}
