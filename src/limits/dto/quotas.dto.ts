import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, Max, Min, ValidateIf } from 'class-validator';

export const MAX_QUOTA = 2_000_000_000;

/** Any of the settings; the others stay as they are. A quota of null removes it. */
export class UpdateQuotasDto {
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: MAX_QUOTA,
    description: 'Events accepted per UTC day; null: no daily quota. 0 accepts none.',
    example: 50_000,
  })
  @ValidateIf((body: UpdateQuotasDto) => body.daily_quota !== null && body.daily_quota !== undefined)
  @IsInt({ message: 'daily_quota must be an integer (or null for no quota)' })
  @Min(0, { message: 'daily_quota must not be below 0' })
  @Max(MAX_QUOTA, { message: `daily_quota must be at most ${MAX_QUOTA}` })
  daily_quota?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: MAX_QUOTA,
    description: 'Events accepted per UTC month; null: no monthly quota. 0 accepts none.',
    example: 1_000_000,
  })
  @ValidateIf((body: UpdateQuotasDto) => body.monthly_quota !== null && body.monthly_quota !== undefined)
  @IsInt({ message: 'monthly_quota must be an integer (or null for no quota)' })
  @Min(0, { message: 'monthly_quota must not be below 0' })
  @Max(MAX_QUOTA, { message: `monthly_quota must be at most ${MAX_QUOTA}` })
  monthly_quota?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: MAX_QUOTA,
    description:
      'Session items (session updates and aggregates) accepted per UTC day; null: no session quota. 0 accepts none.',
    example: 100_000,
  })
  @ValidateIf(
    (body: UpdateQuotasDto) => body.daily_session_quota !== null && body.daily_session_quota !== undefined,
  )
  @IsInt({ message: 'daily_session_quota must be an integer (or null for no quota)' })
  @Min(0, { message: 'daily_session_quota must not be below 0' })
  @Max(MAX_QUOTA, { message: `daily_session_quota must be at most ${MAX_QUOTA}` })
  daily_session_quota?: number | null;

  @ApiPropertyOptional({ description: 'Drop events far above the recent hourly volume (default true).' })
  @IsOptional()
  @IsBoolean({ message: 'spike_protection must be true or false' })
  spike_protection?: boolean;
}
