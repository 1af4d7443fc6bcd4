import { Module } from '@nestjs/common';
import { LoginThrottle } from './login-throttle.service';
import { SessionCookie } from './session-cookie';
import { SessionsService } from './sessions.service';
import { UsersDataModule } from './users-data.module';
import { UsersService } from './users.service';

/**
 * Accounts and their sign-in sessions, without routes: for the modules that look members up, and
 * those that sign people in (sign-in, invitations).
 */
@Module({
  imports: [UsersDataModule],
  providers: [UsersService, SessionsService, SessionCookie, LoginThrottle],
  exports: [UsersDataModule, UsersService, SessionsService, SessionCookie, LoginThrottle],
})
export class UsersModule {}
