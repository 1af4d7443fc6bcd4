import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({
  description:
    "What a channel's receiver answered to a test message: by its status only, so that a channel's secrets cannot be read back.",
})
export class ChannelTestResult {
  @ApiProperty()
  success: boolean;

  @ApiProperty({ description: 'What the receiver answered, or why the delivery failed.' })
  message: string;
}
