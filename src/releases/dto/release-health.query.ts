import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { HEALTH_PERIODS, HealthPeriod } from './release-health.response';

export class HealthQuery {
  @ApiPropertyOptional({
    enum: HEALTH_PERIODS,
    default: '24h',
    description: 'The period of the health figures.',
  })
  @IsOptional()
  @IsIn(HEALTH_PERIODS, { message: `period must be one of ${HEALTH_PERIODS.join(', ')}` })
  period?: HealthPeriod;

  @ApiPropertyOptional({
    description: "Only this environment's sessions (one the project's sessions named).",
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  environment?: string;
}

/** A page of releases, each with its health figures over the period. */
export class ReleasesQuery extends IntersectionType(PageQueryDto, HealthQuery) {}
