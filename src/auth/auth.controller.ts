import {
  Body,
  Controller,
  Get,
  HttpCode,
  Post,
  Req,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { CookieOptions, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { Public } from '../common/public.decorator';
import { LoginDto } from './dto/login.dto';
import type { AuthenticatedRequest } from './request-principal';
import { SESSION_COOKIE, SessionsService } from './sessions.service';
import { UsersService } from './users.service';

interface MeView {
  kind: 'user' | 'token';
  id: number;
  email?: string;
}

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  async login(
    @Body() body: LoginDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ id: number; email: string }> {
    const user = await this.users.verify(body.email, body.password);
    if (!user) throw new UnauthorizedException('invalid e-mail or password');
    const secret = await this.sessions.start(user.id);
    response.cookie(SESSION_COOKIE, secret, { ...this.cookieOptions(), maxAge: this.sessions.ttlMs });
    return { id: user.id, email: user.email };
  }

  @Public()
  @Post('logout')
  @HttpCode(204)
  async logout(
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    await this.sessions.end(request.cookies?.[SESSION_COOKIE]);
    response.clearCookie(SESSION_COOKIE, this.cookieOptions());
  }

  @Get('me')
  async me(@Req() request: AuthenticatedRequest): Promise<MeView> {
    const principal = request.principal;
    if (principal?.kind === 'user') {
      const user = await this.users.findById(principal.userId);
      if (!user) throw new UnauthorizedException('session user no longer exists');
      return { kind: 'user', id: user.id, email: user.email };
    }
    if (principal?.kind === 'token') return { kind: 'token', id: principal.tokenId };
    throw new UnauthorizedException('not signed in');
  }

  private cookieOptions(): CookieOptions {
    return {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.COOKIE_SECURE ?? this.config.publicUrl.startsWith('https://'),
      path: '/',
    };
  }
}
