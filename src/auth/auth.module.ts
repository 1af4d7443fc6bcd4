import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessModule } from '../access/access.module';
import { MemberServicesModule } from '../members/member-services.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { OidcSignIn } from './sso/oidc-sign-in.service';
import { SsoController } from './sso/sso.controller';

@Module({
  imports: [UsersModule, TokensModule, AccessModule, MemberServicesModule],
  controllers: [AuthController, SsoController],
  providers: [OidcSignIn, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [UsersModule],
})
export class AuthModule {}
