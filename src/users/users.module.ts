import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoginThrottle } from './login-throttle.service';
import { SessionCookie } from './session-cookie';
import { Session } from './session.entity';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { UsersDataModule } from './users-data.module';

/** Accounts and their sign-in sessions, for the modules that sign people in (sign-in, invitations). */
@Module({
  imports: [TypeOrmModule.forFeature([Session]), UsersDataModule],
  providers: [SessionsService, SessionsRepository, SessionCookie, LoginThrottle],
  exports: [UsersDataModule, SessionsService, SessionCookie, LoginThrottle],
})
export class UsersModule {}
