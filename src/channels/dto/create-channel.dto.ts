import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { CHANNEL_TYPES, ChannelType } from '../channel.entity';

export const CONFIG_DESCRIPTION =
  'webhook: { url, secret?, headers? }; email: { to: [addresses] }; chat: { webhook_url }. ' +
  'Secrets (secret, header values, credentials and query of url, everything after the host of ' +
  'webhook_url) are shown masked; in a PATCH, leaving one out or sending its masked value back keeps ' +
  'it, null removes it.';

export class CreateChannelDto {
  @ApiProperty({ example: 'Ops webhook', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({ enum: CHANNEL_TYPES })
  @IsIn(CHANNEL_TYPES, { message: `channel_type must be one of ${CHANNEL_TYPES.join(', ')}` })
  channel_type: ChannelType;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: CONFIG_DESCRIPTION,
    example: { url: 'https://example.com/hooks/errors', secret: 'a-long-shared-secret' },
  })
  @IsObject({ message: 'config must be an object' })
  config: Record<string, unknown>;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  is_enabled?: boolean;
}
