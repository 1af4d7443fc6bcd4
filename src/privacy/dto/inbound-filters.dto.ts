import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsOptional, IsString } from 'class-validator';
import { LEGACY_BROWSERS } from '../filters/user-agents';
import { MAX_FILTER_ENTRIES } from '../inbound-filter-settings';

const trimmed = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.trim() : item)) : value;

/**
 * Any of the filters; the others stay as they are. A list replaces the previous one. Lengths,
 * globs, ranges and browser names are checked by the service, which says which entry is wrong.
 */
export class UpdateInboundFiltersDto {
  @ApiPropertyOptional({ description: 'Drop errors thrown by browser extensions and injected scripts.' })
  @IsOptional()
  @IsBoolean()
  browser_extensions?: boolean;

  @ApiPropertyOptional({ description: 'Drop events from localhost (user IP or request URL).' })
  @IsOptional()
  @IsBoolean()
  localhost?: boolean;

  @ApiPropertyOptional({ description: 'Drop events whose User-Agent is a known crawler, bot or monitor.' })
  @IsOptional()
  @IsBoolean()
  web_crawlers?: boolean;

  @ApiPropertyOptional({
    type: [String],
    enum: LEGACY_BROWSERS,
    description: 'The legacy browsers whose events are dropped; empty: the filter is off.',
  })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  legacy_browsers?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_FILTER_ENTRIES,
    description: 'Release globs (`*`, `?`; case-sensitive): events of a matching release are dropped.',
    example: ['1.0.*-beta', 'staging-*'],
  })
  @IsOptional()
  @Transform(trimmed)
  @IsArray()
  @IsString({ each: true })
  releases?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_FILTER_ENTRIES,
    description:
      'Error-message globs (any case), matched against `Type: value` of each exception and the log message.',
    example: ['ResizeObserver loop*', '*ChunkLoadError*'],
  })
  @IsOptional()
  @Transform(trimmed)
  @IsArray()
  @IsString({ each: true })
  error_messages?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_FILTER_ENTRIES,
    description: 'Client addresses and CIDR ranges (IPv4 or IPv6) whose events are dropped.',
    example: ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32'],
  })
  @IsOptional()
  @Transform(trimmed)
  @IsArray()
  @IsString({ each: true })
  client_ips?: string[];
}
