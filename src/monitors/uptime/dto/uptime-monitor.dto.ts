import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { UPTIME_METHODS, UptimeMethod } from '../uptime-monitor-rules';

export class ExpectedStatusDto {
  @ApiProperty({ example: 200, minimum: 100, maximum: 599 })
  @IsInt({ message: 'expected_status.min must be an integer' })
  min: number;

  @ApiProperty({ example: 299, minimum: 100, maximum: 599 })
  @IsInt({ message: 'expected_status.max must be an integer' })
  max: number;
}

/** The fields of an uptime monitor besides its name and URL: optional on create and on PATCH. */
class UptimeMonitorFields {
  @ApiPropertyOptional({ enum: UPTIME_METHODS, default: 'GET' })
  @IsOptional()
  @IsIn(UPTIME_METHODS, { message: `method must be one of ${UPTIME_METHODS.join(', ')}` })
  method?: UptimeMethod;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Accept: 'text/html' },
    description:
      'request headers (at most 50). Values are write-only: answers show them masked. In a change, a value ' +
      'sent back as shown keeps the stored one, a header left out of the object is removed, and stored ' +
      'values are kept only while url stays on the same origin.',
  })
  @IsOptional()
  @IsObject({ message: 'headers must be an object of header names and string values' })
  headers?: Record<string, string>;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'request body (at most 64 KiB)' })
  @IsOptional()
  @IsString({ message: 'body must be a string' })
  body?: string | null;

  @ApiPropertyOptional({ type: ExpectedStatusDto, description: 'default 200 to 299' })
  @IsOptional()
  @IsObject({ message: 'expected_status must be an object with min and max' })
  @ValidateNested()
  @Type(() => ExpectedStatusDto)
  expected_status?: ExpectedStatusDto;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'text the first 64 KiB of the response body must contain',
  })
  @IsOptional()
  @IsString({ message: 'body_contains must be a string' })
  body_contains?: string | null;

  @ApiPropertyOptional({ default: 60, minimum: 30, maximum: 86_400 })
  @IsOptional()
  @IsInt({ message: 'interval_seconds must be an integer' })
  interval_seconds?: number;

  @ApiPropertyOptional({ default: 10, minimum: 1, maximum: 60, description: 'less than interval_seconds' })
  @IsOptional()
  @IsInt({ message: 'timeout_seconds must be an integer' })
  timeout_seconds?: number;

  @ApiPropertyOptional({ default: 14, minimum: 0, maximum: 365, description: '0 turns the warning off' })
  @IsOptional()
  @IsInt({ message: 'tls_expiry_days must be an integer' })
  tls_expiry_days?: number;

  @ApiPropertyOptional({ default: 1, minimum: 1, maximum: 100 })
  @IsOptional()
  @IsInt({ message: 'failure_threshold must be an integer' })
  failure_threshold?: number;

  @ApiPropertyOptional({ default: 1, minimum: 1, maximum: 100 })
  @IsOptional()
  @IsInt({ message: 'recovery_threshold must be an integer' })
  recovery_threshold?: number;

  @ApiPropertyOptional({ default: false, description: 'checks go on; no issue is opened' })
  @IsOptional()
  @IsBoolean({ message: 'muted must be a boolean' })
  muted?: boolean;
}

export class CreateUptimeMonitorDto extends UptimeMonitorFields {
  @ApiProperty({ example: 'Shop front page', maxLength: 200 })
  @IsString({ message: 'name must be a string' })
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(200, { message: 'name must be at most 200 characters' })
  name: string;

  @ApiProperty({
    example: 'https://shop.example.com/health',
    description: 'http or https, without credentials, not a private address (unless configured)',
  })
  @IsString({ message: 'url must be a string' })
  @MaxLength(2000, { message: 'url must be at most 2000 characters' })
  url: string;
}

/** Every field optional: only those sent change. */
export class UpdateUptimeMonitorDto extends UptimeMonitorFields {
  @ApiPropertyOptional({ example: 'Shop front page', maxLength: 200 })
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(200, { message: 'name must be at most 200 characters' })
  name?: string;

  @ApiPropertyOptional({
    example: 'https://shop.example.com/health',
    description: 'http or https, without credentials, not a private address (unless configured)',
  })
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  @MaxLength(2000, { message: 'url must be at most 2000 characters' })
  url?: string;
}

export const CHECK_PERIODS = ['24h', '7d', '30d'] as const;
export type CheckPeriod = (typeof CHECK_PERIODS)[number];

export class ChecksQuery {
  @ApiPropertyOptional({ enum: CHECK_PERIODS, default: '24h' })
  @IsOptional()
  @IsIn(CHECK_PERIODS, { message: `period must be one of ${CHECK_PERIODS.join(', ')}` })
  period?: CheckPeriod;
}
