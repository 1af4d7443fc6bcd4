import { Module } from '@nestjs/common';
import { InvitationsRepository } from './invitations.repository';
import { TeamsRepository } from './teams.repository';

/** Teams and invitations without routes (the guard reads which projects a member's teams have). */
@Module({
  providers: [TeamsRepository, InvitationsRepository],
  exports: [TeamsRepository, InvitationsRepository],
})
export class MembersDataModule {}
