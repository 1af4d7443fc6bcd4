import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { UsersDataModule } from '../users/users-data.module';
import { MailModule } from '../mail/mail.module';
import { Assignees } from './assignees';
import { InvitationAccounts } from './invitation-accounts';
import { InvitationsRepository } from './invitations.repository';
import { TeamsRepository } from './teams.repository';

/**
 * Teams, invitations and assignees without routes (the guard reads which projects a member's teams
 * have; issues look their assignees up).
 */
@Module({
  imports: [UsersDataModule, MailModule, AccessModule],
  providers: [TeamsRepository, InvitationsRepository, Assignees, InvitationAccounts],
  exports: [TeamsRepository, InvitationsRepository, Assignees, InvitationAccounts],
})
export class MembersDataModule {}
