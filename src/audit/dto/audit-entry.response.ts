import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ description: 'One entry of the audit log: who did what to what, when.' })
export class AuditEntryView {
  @ApiProperty()
  id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({
    description: 'The e-mail of the account, or how a token or the tracker itself is named.',
  })
  actor: string;

  @ApiProperty({ type: Number, nullable: true })
  actor_user_id: number | null;

  @ApiProperty({ type: Number, nullable: true })
  actor_token_id: number | null;

  @ApiProperty({ example: 'member.role_change' })
  action: string;

  @ApiProperty({ type: String, nullable: true, example: 'member' })
  target_type: string | null;

  @ApiProperty({ type: String, nullable: true })
  target_id: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'What the action changed.' })
  details: Record<string, unknown>;

  @ApiProperty({ type: String, nullable: true })
  ip: string | null;
}
