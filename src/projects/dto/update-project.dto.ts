import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';

export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 3650;
const RETENTION_MESSAGE = `retention_days must be an integer from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, or null`;

/** Any of the project's settings; at least one (checked by the service). */
export class UpdateProjectDto {
  @ApiPropertyOptional({ example: 'Web shop', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: MIN_RETENTION_DAYS,
    maximum: MAX_RETENTION_DAYS,
    description: 'days events are kept; null follows EVENT_RETENTION_DAYS',
  })
  @ValidateIf((body: UpdateProjectDto) => body.retention_days !== null)
  @IsOptional()
  @IsInt({ message: RETENTION_MESSAGE })
  @Min(MIN_RETENTION_DAYS, { message: RETENTION_MESSAGE })
  @Max(MAX_RETENTION_DAYS, { message: RETENTION_MESSAGE })
  retention_days?: number | null;
}
