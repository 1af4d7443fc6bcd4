import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';

export const DEFAULT_GRACE_HOURS = 24;
/** 30 days: long enough to redeploy every client, short enough that a leaked key does not linger. */
export const MAX_GRACE_HOURS = 720;
const GRACE_MESSAGE = `grace_hours must be an integer from 0 to ${MAX_GRACE_HOURS}`;

export class RotateClientKeyDto {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_GRACE_HOURS,
    default: DEFAULT_GRACE_HOURS,
    description: 'hours the replaced key keeps ingesting; 0 stops it at once',
  })
  // Only a missing field takes the default: null is refused like any other non-integer.
  @ValidateIf((body: RotateClientKeyDto) => body.grace_hours !== undefined)
  @IsInt({ message: GRACE_MESSAGE })
  @Min(0, { message: GRACE_MESSAGE })
  @Max(MAX_GRACE_HOURS, { message: GRACE_MESSAGE })
  grace_hours?: number;
}
