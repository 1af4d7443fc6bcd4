import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { CONFIG_DESCRIPTION } from './create-channel.dto';

/** The type of a channel is fixed at creation; its config is revalidated against that type. */
export class UpdateChannelDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  is_enabled?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: CONFIG_DESCRIPTION })
  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  config?: Record<string, unknown>;
}
