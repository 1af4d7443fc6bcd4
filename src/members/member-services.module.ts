import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { MailModule } from '../mail/mail.module';
import { UsersModule } from '../users/users.module';
import { Assignees } from './assignees';
import { InvitationAccounts } from './invitation-accounts';
import { MembersDataModule } from './members-data.module';

/**
 * Teams, invitations and assignees without routes (the guard reads which projects a member's teams
 * have; issues look their assignees up; sign-in accepts invitations).
 */
@Module({
  imports: [MembersDataModule, UsersModule, MailModule, AccessModule],
  providers: [Assignees, InvitationAccounts],
  exports: [Assignees, InvitationAccounts, MembersDataModule],
})
export class MemberServicesModule {}
