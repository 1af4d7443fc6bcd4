import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ALERT_TYPES, AlertType } from '../alert-rule.entity';

/** A year: a longer cooldown is a disabled rule in disguise. */
export const MAX_COOLDOWN_MINUTES = 525_600;
export const MAX_RULE_CHANNELS = 100;

export const CONDITIONS_DESCRIPTION =
  'Issue alerts: optional filters `environments` (list of environment names) and `min_level` ' +
  '(debug, info, warning, error or fatal); empty object: every event matches. `monitor_failed` and ' +
  '`monitor_recovered` also take `monitor_kinds` (`cron`, `uptime`). `release_health`: ' +
  '`metric` (crash_free_sessions or crash_free_users), `threshold` (percent, > 0 and ≤ 100), ' +
  '`window_hours` (1 to 168), `min_sessions` (≥ 1) and optional `environments`.';

export class CreateRuleDto {
  @ApiProperty({ example: 'New issues to ops', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({ enum: ALERT_TYPES })
  @IsIn(ALERT_TYPES, { message: `alert_type must be one of ${ALERT_TYPES.join(', ')}` })
  alert_type: AlertType;

  @ApiProperty({ type: [Number], example: [1], description: 'ids of existing notification channels' })
  // Reported before the per-item checks, which would otherwise speak for a missing list.
  @IsDefined({ message: 'channel_ids must be an array of channel ids' })
  @IsArray({ message: 'channel_ids must be an array of channel ids' })
  @ArrayMaxSize(MAX_RULE_CHANNELS)
  @IsInt({ each: true, message: 'channel_ids must contain positive integers' })
  @Min(1, { each: true, message: 'channel_ids must contain positive integers' })
  @Max(2_147_483_647, { each: true, message: 'channel_ids must contain positive integers' })
  channel_ids: number[];

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  is_enabled?: boolean;

  @ApiPropertyOptional({ default: 0, minimum: 0, maximum: MAX_COOLDOWN_MINUTES })
  @IsOptional()
  @IsInt({ message: 'cooldown_minutes must be an integer' })
  @Min(0, { message: 'cooldown_minutes must not be negative' })
  @Max(MAX_COOLDOWN_MINUTES, { message: `cooldown_minutes must not be greater than ${MAX_COOLDOWN_MINUTES}` })
  cooldown_minutes?: number;

  @ApiPropertyOptional({
    default: false,
    description:
      "also e-mail the issue's assignee (a member, or each member of a team) who has personal e-mails on",
  })
  @IsOptional()
  @IsBoolean()
  notify_assignee?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: CONDITIONS_DESCRIPTION,
    example: { environments: ['production'], min_level: 'error' },
  })
  @IsOptional()
  @IsObject({ message: 'conditions must be an object' })
  conditions?: Record<string, unknown>;
}
