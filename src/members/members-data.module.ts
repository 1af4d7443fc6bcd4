import { Module } from '@nestjs/common';
import { InvitationsRepository } from './invitations.repository';
import { TeamsRepository } from './teams.repository';

/** The teams' and invitations' rows, without services or routes. */
@Module({
  providers: [TeamsRepository, InvitationsRepository],
  exports: [TeamsRepository, InvitationsRepository],
})
export class MembersDataModule {}
