import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { STATS_PERIODS, StatsPeriod } from '../stats-period';

export class StatsQuery {
  @ApiPropertyOptional({ enum: STATS_PERIODS, default: '24h' })
  @IsOptional()
  @IsIn(STATS_PERIODS, { message: `period must be one of ${STATS_PERIODS.join(', ')}` })
  period?: StatsPeriod;

  @ApiPropertyOptional({ description: 'count only the events of this environment' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  environment?: string;
}
