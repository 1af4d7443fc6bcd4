import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDate,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxDate,
  Min,
  MinDate,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination';

/** The times PostgreSQL and toISOString both spell plainly. */
const EARLIEST = new Date('0001-01-01T00:00:00Z');
const LATEST = new Date('9999-12-31T23:59:59.999Z');

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
  @MinDate(EARLIEST, { message: 'since must be a date from the year 1 to 9999' })
  @MaxDate(LATEST, { message: 'since must be a date from the year 1 to 9999' })
  since?: Date;

  @ApiPropertyOptional({ description: 'ISO 8601; entries before it' })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'until must be an ISO 8601 date' })
  @MinDate(EARLIEST, { message: 'until must be a date from the year 1 to 9999' })
  @MaxDate(LATEST, { message: 'until must be a date from the year 1 to 9999' })
  until?: Date;
}
