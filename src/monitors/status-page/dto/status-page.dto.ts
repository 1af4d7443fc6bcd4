import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

/** A status page's slug: what a page may be saved with, and so all the public route may find. */
export const STATUS_PAGE_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export const MAX_STATUS_PAGE_MONITORS = 100;

export class UpdateStatusPageDto {
  @ApiProperty({ description: 'the page is public at /status/{slug} while true' })
  @IsBoolean({ message: 'enabled must be a boolean' })
  enabled: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'shop',
    description: 'lower-case letters, digits and dashes; unique in the installation; needed to enable',
  })
  @IsOptional()
  @IsString({ message: 'slug must be a string' })
  @Matches(STATUS_PAGE_SLUG, {
    message: 'slug must be 1 to 64 lower-case letters, digits and dashes, not starting or ending with a dash',
  })
  slug?: string | null;

  @ApiPropertyOptional({ example: 'Shop status', maxLength: 200 })
  @IsOptional()
  @IsString({ message: 'title must be a string' })
  @MaxLength(200, { message: 'title must be at most 200 characters' })
  title?: string;

  @ApiPropertyOptional({
    type: [Number],
    description: 'uptime monitors of this project shown, in this order',
  })
  @IsOptional()
  @IsArray({ message: 'uptime_monitor_ids must be an array of monitor ids' })
  @ArrayMaxSize(MAX_STATUS_PAGE_MONITORS)
  @IsInt({ each: true, message: 'uptime_monitor_ids must contain positive integers' })
  @Min(1, { each: true, message: 'uptime_monitor_ids must contain positive integers' })
  @Max(2_147_483_647, { each: true, message: 'uptime_monitor_ids must contain positive integers' })
  uptime_monitor_ids?: number[];

  @ApiPropertyOptional({ type: [Number], description: 'cron monitors of this project shown, in this order' })
  @IsOptional()
  @IsArray({ message: 'cron_monitor_ids must be an array of monitor ids' })
  @ArrayMaxSize(MAX_STATUS_PAGE_MONITORS)
  @IsInt({ each: true, message: 'cron_monitor_ids must contain positive integers' })
  @Min(1, { each: true, message: 'cron_monitor_ids must contain positive integers' })
  @Max(2_147_483_647, { each: true, message: 'cron_monitor_ids must contain positive integers' })
  cron_monitor_ids?: number[];
}
