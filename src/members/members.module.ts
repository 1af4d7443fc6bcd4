import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { MailModule } from '../mail/mail.module';
import { ProjectsModule } from '../projects/projects.module';
import { InvitationAcceptController, InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';
import { MembersController, TeamsController } from './members.controller';
import { MemberServicesModule } from './member-services.module';
import { MembersService } from './members.service';
import { TeamsService } from './teams.service';

@Module({
  imports: [UsersModule, MemberServicesModule, ProjectsModule, MailModule],
  controllers: [MembersController, TeamsController, InvitationsController, InvitationAcceptController],
  providers: [MembersService, TeamsService, InvitationsService],
})
export class MembersModule {}
