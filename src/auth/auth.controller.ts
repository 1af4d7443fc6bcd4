import {
  Body,
  Controller,
  ForbiddenException,
  Get,
  HttpCode,
  Post,
  Req,
  Res,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { CookieOptions, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { HashingBusyError } from '../common/crypto';
import { Public } from '../common/public.decorator';
import { LoginDto } from './dto/login.dto';
import { LoginThrottle } from './login-throttle.service';
import type { AuthenticatedRequest } from './request-principal';
import { originOf, requestSite } from './same-origin';
import { SESSION_COOKIE, SessionsService } from './sessions.service';
import type { User } from './user.entity';
import { UsersService } from './users.service';

interface MeView {
  kind: 'user' | 'token';
  id: number;
  email?: string;
}

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  private readonly publicOrigin: string;

  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly throttle: LoginThrottle,
    private readonly config: AppConfig,
  ) {
    this.publicOrigin = originOf(config.publicUrl);
  }

  /**
   * Public, and so outside the guard's cross-site check: a page elsewhere must not sign the browser
   * in (to an account of the attacker's choosing) nor out. Scripts, which send neither Origin nor
   * Sec-Fetch-Site, may.
   */
  @Public()
  @Post('login')
  @HttpCode(200)
  async login(
    @Body() body: LoginDto,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ id: number; email: string }> {
    if (requestSite(request, this.publicOrigin) === 'cross-site') {
      throw new ForbiddenException('cross-site sign-in refused');
    }
    await this.throttle.attempt(body.email, request.ip, response);
    const user = await this.verify(body.email, body.password, response);
    if (!user) throw new UnauthorizedException('invalid e-mail or password');
    await this.throttle.succeeded(body.email);
    // A new session id at every sign-in: a cookie planted before it (session fixation) ends here,
    // once the new session exists (a failure in between leaves the old one usable).
    const secret = await this.sessions.start(user.id);
    await this.sessions.end(request.cookies?.[SESSION_COOKIE]);
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
    if (requestSite(request, this.publicOrigin) === 'cross-site') {
      throw new ForbiddenException('cross-site sign-out refused');
    }
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

  private async verify(email: string, password: string, response: Response): Promise<User | null> {
    try {
      return await this.users.verify(email, password);
    } catch (error) {
      if (!(error instanceof HashingBusyError)) throw error;
      response.setHeader('Retry-After', '1');
      throw new ServiceUnavailableException('sign-in is busy, try again in a moment');
    }
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
