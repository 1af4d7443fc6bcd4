import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module';
import { TokensModule } from '../tokens/tokens.module';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { LoginThrottle } from './login-throttle.service';
import { Session } from './session.entity';
import { SessionCookie } from './session-cookie';
import { SessionsService } from './sessions.service';
import { User } from './user.entity';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([User, Session]), TokensModule, AccessModule],
  controllers: [AuthController],
  providers: [
    UsersService,
    SessionsService,
    SessionCookie,
    LoginThrottle,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [UsersService, SessionsService, SessionCookie],
})
export class AuthModule {}
