import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ROLES, Role } from '../../access/roles';

@ApiSchema({ description: 'An account on the tracker.' })
export class MemberView {
  @ApiProperty()
  id: number;

  @ApiProperty({ example: 'ada@example.com' })
  email: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ROLES })
  role: Role;

  @ApiProperty({ description: 'False once deactivated: it can no longer sign in.' })
  is_active: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  deactivated_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: [Number] })
  team_ids: number[];

  @ApiProperty({ description: 'Signs in through the identity provider.' })
  sso: boolean;
}

@ApiSchema({ description: 'A team: members, and the projects they see through it.' })
export class TeamView {
  @ApiProperty()
  id: number;

  @ApiProperty({ example: 'backend' })
  slug: string;

  @ApiProperty({ example: 'Backend' })
  name: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: [Number] })
  member_ids: number[];

  @ApiProperty({ type: [Number], description: 'Those the caller sees.' })
  project_ids: number[];
}

const INVITATION_STATES = ['pending', 'expired', 'accepted', 'revoked'] as const;

@ApiSchema({ description: 'An invitation to join, by e-mail.' })
export class InvitationView {
  @ApiProperty()
  id: number;

  @ApiProperty()
  email: string;

  @ApiProperty({ enum: ROLES })
  role: Role;

  @ApiProperty({ type: [Number] })
  team_ids: number[];

  @ApiProperty({ type: Number, nullable: true, description: 'The account that invited.' })
  invited_by: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  expires_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  accepted_at: string | null;

  @ApiProperty({
    enum: INVITATION_STATES,
    description: '`pending`, or `expired` once its time is up (it can then only be revoked).',
  })
  state: (typeof INVITATION_STATES)[number];
}

@ApiSchema({ description: 'A new invitation, with its link: in this answer only.' })
export class CreatedInvitation extends InvitationView {
  @ApiProperty({ description: 'The link to send the invitee; the secret in it is stored only hashed.' })
  link: string;

  @ApiProperty({ description: 'Whether it was e-mailed (SMTP set up, and sending worked).' })
  emailed: boolean;
}

@ApiSchema({ description: "What the invitee's page shows before they accept." })
export class InvitationPreview {
  @ApiProperty()
  email: string;

  @ApiProperty({ enum: ROLES })
  role: Role;

  @ApiProperty({ format: 'date-time' })
  expires_at: string;
}

@ApiSchema({ description: 'The account made by accepting an invitation; the browser is signed in with it.' })
export class AcceptedInvitation {
  @ApiProperty()
  id: number;

  @ApiProperty()
  email: string;

  @ApiProperty({ enum: ROLES })
  role: Role;
}
