import { Module } from '@nestjs/common';
import { LoginThrottle } from './login-throttle.service';
import { SessionCookie } from './session-cookie';
import { SessionsService } from './sessions.service';
import { UsersDataModule } from './users-data.module';

/** Accounts and their sign-in sessions, for the modules that sign people in (sign-in, invitations). */
@Module({
  imports: [UsersDataModule],
  providers: [SessionsService, SessionCookie, LoginThrottle],
  exports: [UsersDataModule, SessionsService, SessionCookie, LoginThrottle],
})
export class UsersModule {}
