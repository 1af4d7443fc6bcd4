import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ description: 'A signed-in browser of the account.' })
export class SessionView {
  @ApiProperty()
  id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  expires_at: string;

  @ApiProperty({ type: String, nullable: true })
  user_agent: string | null;

  @ApiProperty({ type: String, nullable: true })
  ip: string | null;

  @ApiProperty({ description: 'The session this request was made with.' })
  current: boolean;
}
