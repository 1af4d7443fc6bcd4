import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

const SCHEDULE_DESCRIPTION =
  "`{ type: 'crontab', value: '*/5 * * * *' }` or `{ type: 'interval', value: 10, unit: 'minute' }` " +
  '(units: minute, hour, day, week, month, year).';

/** The shape of a schedule, for the OpenAPI document; the service checks it (validSchedule). */
export class CronScheduleInput {
  @ApiProperty({ enum: ['crontab', 'interval'] })
  type: 'crontab' | 'interval';

  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }], example: '*/5 * * * *' })
  value: string | number;

  @ApiPropertyOptional({ enum: ['minute', 'hour', 'day', 'week', 'month', 'year'] })
  unit?: string;
}

/** The settings both creating and editing take; ranges are checked by the service, with Sentry's limits. */
class CronMonitorSettingsDto {
  @ApiPropertyOptional({
    description: 'Minutes after the expected time before a run counts as missed (default 1).',
  })
  @IsOptional()
  @IsInt({ message: 'checkin_margin must be a whole number of minutes' })
  checkin_margin?: number;

  @ApiPropertyOptional({
    description: 'Minutes a run may stay in progress before it times out (default 30).',
  })
  @IsOptional()
  @IsInt({ message: 'max_runtime must be a whole number of minutes' })
  max_runtime?: number;

  @ApiPropertyOptional({
    description: 'IANA timezone the crontab is evaluated in (default UTC).',
    example: 'Europe/Berlin',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timezone?: string;

  @ApiPropertyOptional({ description: 'Consecutive failures that open an issue (1 to 720, default 1).' })
  @IsOptional()
  @IsInt()
  failure_issue_threshold?: number;

  @ApiPropertyOptional({ description: 'Consecutive successes that resolve it (1 to 720, default 1).' })
  @IsOptional()
  @IsInt()
  recovery_threshold?: number;
}

export class CreateCronMonitorDto extends CronMonitorSettingsDto {
  @ApiProperty({ example: 'Nightly backup' })
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ description: 'Normalised as Sentry does; made from the name when left out.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  slug?: string;

  @ApiProperty({ type: CronScheduleInput, description: SCHEDULE_DESCRIPTION })
  @IsObject({ message: 'schedule must be an object' })
  schedule: Record<string, unknown>;
}

export class UpdateCronMonitorDto extends CronMonitorSettingsDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: CronScheduleInput, description: SCHEDULE_DESCRIPTION })
  @IsOptional()
  @IsObject({ message: 'schedule must be an object' })
  schedule?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'A muted monitor records check-ins but opens no issue.' })
  @IsOptional()
  @IsBoolean()
  muted?: boolean;
}

/** The statuses a check-in list can be narrowed to; `failed` is error, missed and timeout together. */
export const CHECK_IN_STATUS_FILTERS = ['in_progress', 'ok', 'error', 'missed', 'timeout', 'failed'] as const;

export class CheckInListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  environment?: string;

  @ApiPropertyOptional({
    enum: CHECK_IN_STATUS_FILTERS,
    description:
      'Only check-ins of this status; `failed`: error, missed and timed out ones (what counts on the issue).',
  })
  @IsOptional()
  @IsIn(CHECK_IN_STATUS_FILTERS, { message: `status must be one of ${CHECK_IN_STATUS_FILTERS.join(', ')}` })
  status?: (typeof CHECK_IN_STATUS_FILTERS)[number];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}
