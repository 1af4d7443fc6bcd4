import { Module } from '@nestjs/common';
import { UsersDataModule } from '../auth/users-data.module';
import { MailModule } from '../mail/mail.module';
import { AssignmentMail } from './assignment-mail';
import { Assignees } from './assignees';
import { InvitationAccounts } from './invitation-accounts';
import { InvitationsRepository } from './invitations.repository';
import { TeamsRepository } from './teams.repository';

/**
 * Teams, invitations and assignees without routes (the guard reads which projects a member's teams
 * have; issues look their assignees up).
 */
@Module({
  imports: [UsersDataModule, MailModule],
  providers: [TeamsRepository, InvitationsRepository, Assignees, AssignmentMail, InvitationAccounts],
  exports: [TeamsRepository, InvitationsRepository, Assignees, AssignmentMail, InvitationAccounts],
})
export class MembersDataModule {}
