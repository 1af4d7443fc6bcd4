import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ description: 'A test event put on the digest queue; it is stored within seconds.' })
export class TestEventView {
  @ApiProperty({
    description: 'The event id (dashed UUID): GET /api/events/{id} answers once it is stored.',
    example: '0f2f9c1e-7d55-4a57-9d0b-6a3b1cf1f6d4',
  })
  event_id: string;
}
