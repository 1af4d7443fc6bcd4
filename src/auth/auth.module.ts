import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module';
import { MembersDataModule } from '../members/members-data.module';
import { TokensModule } from '../tokens/tokens.module';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { LoginThrottle } from './login-throttle.service';
import { Session } from './session.entity';
import { SessionCookie } from './session-cookie';
import { OidcSignIn } from './sso/oidc-sign-in.service';
import { SsoController } from './sso/sso.controller';
import { SessionsService } from './sessions.service';
import { UsersDataModule } from './users-data.module';

@Module({
  imports: [
    TypeOrmModule.forFeature([Session]),
    UsersDataModule,
    TokensModule,
    AccessModule,
    MembersDataModule,
  ],
  controllers: [AuthController, SsoController],
  providers: [
    SessionsService,
    SessionCookie,
    OidcSignIn,
    LoginThrottle,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [UsersDataModule, SessionsService, SessionCookie, LoginThrottle],
})
export class AuthModule {}
