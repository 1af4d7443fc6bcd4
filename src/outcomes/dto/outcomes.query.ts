import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { STATS_PERIODS, StatsPeriod } from '../../rollups/stats-period';

export class OutcomesQuery {
  @ApiPropertyOptional({ enum: STATS_PERIODS, default: '24h' })
  @IsOptional()
  @IsIn(STATS_PERIODS, { message: `period must be one of ${STATS_PERIODS.join(', ')}` })
  period?: StatsPeriod;
}
