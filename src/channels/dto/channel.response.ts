import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CHANNEL_TYPES, ChannelType } from '../channel.entity';

@ApiSchema({ description: 'A notification channel: where alerts are sent.' })
export class ChannelView {
  @ApiProperty()
  id: number;

  @ApiProperty({ example: 'Ops webhook' })
  name: string;

  @ApiProperty({ enum: CHANNEL_TYPES })
  channel_type: ChannelType;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The channel's settings (see CreateChannelDto), its secrets masked.",
  })
  config: Record<string, unknown>;

  @ApiProperty()
  is_enabled: boolean;

  @ApiProperty({ description: 'Consecutive failed deliveries; a success resets it.' })
  failure_count: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_success_at: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why the last failed delivery failed.' })
  last_error: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}
