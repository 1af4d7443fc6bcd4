import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Permission, PERMISSIONS, ROLES, Role } from '../../access/roles';

@ApiSchema({
  description: 'Who the request acts as: an account (session or its token), or an operator token.',
})
export class MeView {
  @ApiProperty({ enum: ['user', 'token'] })
  kind: 'user' | 'token';

  @ApiProperty({ description: "The account's id, or the token's for a token." })
  id: number;

  @ApiProperty({ type: Number, nullable: true, description: 'The account; null for an operator token.' })
  user_id: number | null;

  @ApiPropertyOptional({ description: "The account's e-mail; absent for an operator token." })
  email?: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ROLES })
  role: Role;

  @ApiProperty({
    enum: Object.keys(PERMISSIONS),
    isArray: true,
    description: 'What the dashboard may offer; the API decides again on every request.',
  })
  permissions: Permission[];

  @ApiProperty({ description: 'Only GET and HEAD requests.' })
  read_only: boolean;

  @ApiProperty({ type: [Number], nullable: true, description: 'The projects it sees; null: every project.' })
  project_ids: number[] | null;

  @ApiProperty({ description: 'Wants personal e-mails (assignments).' })
  email_notifications: boolean;

  @ApiProperty({ description: 'The account is linked to its identity at the single sign-on provider.' })
  sso_linked: boolean;
}

@ApiSchema({ description: 'The account signed in; the answer sets the session cookie.' })
export class SignedIn {
  @ApiProperty()
  id: number;

  @ApiProperty()
  email: string;
}

@ApiSchema({ description: 'How the sign-in page offers to sign in.' })
export class SsoSettings {
  @ApiProperty({ description: 'Single sign-on is set up.' })
  enabled: boolean;

  @ApiProperty({ description: 'The name of the identity provider, for the button.' })
  name: string;

  @ApiProperty({ description: 'False when accounts may only sign in through single sign-on.' })
  password_login: boolean;
}

@ApiSchema({ description: "Whether this browser is signed in: its session's account, or null." })
export class SessionState {
  @ApiProperty({
    type: MeView,
    nullable: true,
    description: 'The account as `GET /auth/me` describes it; null when no session is signed in.',
  })
  user: MeView | null;
}
