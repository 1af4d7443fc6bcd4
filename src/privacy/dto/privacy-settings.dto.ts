import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';

export const MAX_FIELD_NAMES = 100;
export const MAX_FIELD_NAME_LENGTH = 100;

const trimmed = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.trim() : item)) : value;

/** Any of the settings; the others stay as they are. */
export class UpdatePrivacySettingsDto {
  @ApiPropertyOptional({
    description: 'Replace secrets by [Filtered] before events are stored (default true).',
  })
  @IsOptional()
  @IsBoolean()
  scrub_data?: boolean;

  @ApiPropertyOptional({
    description: "Also remove the user's IP address and IP addresses inside any value (default false).",
  })
  @IsOptional()
  @IsBoolean()
  scrub_ip_addresses?: boolean;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_FIELD_NAMES,
    description: 'Extra key names (matched anywhere in a key, any case) whose values are scrubbed.',
    example: ['national_id', 'dob'],
  })
  @IsOptional()
  @Transform(trimmed)
  @IsArray()
  @ArrayMaxSize(MAX_FIELD_NAMES, { message: `sensitive_fields may hold at most ${MAX_FIELD_NAMES} names` })
  @IsString({ each: true })
  @IsNotEmpty({ each: true, message: 'sensitive_fields may not hold an empty name' })
  @MaxLength(MAX_FIELD_NAME_LENGTH, {
    each: true,
    message: `each of sensitive_fields must be at most ${MAX_FIELD_NAME_LENGTH} characters`,
  })
  sensitive_fields?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_FIELD_NAMES,
    description: 'Key names (whole names, any case) that are never scrubbed.',
    example: ['auth_provider'],
  })
  @IsOptional()
  @Transform(trimmed)
  @IsArray()
  @ArrayMaxSize(MAX_FIELD_NAMES, { message: `safe_fields may hold at most ${MAX_FIELD_NAMES} names` })
  @IsString({ each: true })
  @IsNotEmpty({ each: true, message: 'safe_fields may not hold an empty name' })
  @MaxLength(MAX_FIELD_NAME_LENGTH, {
    each: true,
    message: `each of safe_fields must be at most ${MAX_FIELD_NAME_LENGTH} characters`,
  })
  safe_fields?: string[];
}
