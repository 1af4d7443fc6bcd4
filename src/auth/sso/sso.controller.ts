import { Controller, Get, HttpCode, Query, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { CookieOptions, Response } from 'express';
import { AuditLog } from '../../audit/audit-log.service';
import { Public } from '../../common/public.decorator';
import { AppConfig } from '../../config/app-config';
import type { AuthenticatedRequest } from '../request-principal';
import { authCookieOptions, SessionCookie } from '../session-cookie';
import { OidcSignIn, SsoRefusal } from './oidc-sign-in.service';

/** Holds the sign-in in progress between leaving for the provider and coming back. */
const SSO_COOKIE = 'et_sso';

/**
 * Single sign-on through an OpenID Connect provider (see OidcSignIn). Public: the browser has no
 * session yet. Every outcome is a redirect: to the provider, back into the dashboard, or to the
 * sign-in page with the reason.
 */
@ApiTags('auth')
@Controller('auth/sso')
export class SsoController {
  constructor(
    private readonly sso: OidcSignIn,
    private readonly cookie: SessionCookie,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
  ) {}

  /** What the sign-in page offers. */
  @Public()
  @Get()
  settings(): { enabled: boolean; name: string; password_login: boolean } {
    return {
      enabled: this.sso.enabled,
      name: this.config.OIDC_NAME,
      password_login: this.config.PASSWORD_LOGIN,
    };
  }

  /** `next`: the dashboard path to return to (paths of this site only). */
  @Public()
  @Get('start')
  async start(@Query('next') next: unknown, @Res() response: Response): Promise<void> {
    try {
      const { url, secret } = await this.sso.start(next);
      response.cookie(SSO_COOKIE, secret, { ...this.cookieOptions(), maxAge: 600_000 });
      response.redirect(303, url);
    } catch (error) {
      if (!(error instanceof SsoRefusal)) throw error;
      response.redirect(303, this.loginPageWith(error.message));
    }
  }

  @Public()
  @Get('callback')
  @HttpCode(303)
  async callback(@Req() request: AuthenticatedRequest, @Res() response: Response): Promise<void> {
    const secret = request.cookies?.[SSO_COOKIE];
    response.clearCookie(SSO_COOKIE, this.cookieOptions());
    const query = request.originalUrl.includes('?')
      ? request.originalUrl.slice(request.originalUrl.indexOf('?') + 1)
      : '';
    try {
      const { user, next } = await this.sso.finish(secret, query);
      await this.cookie.signIn(request, response, user.id);
      await this.audit.record(
        { userId: user.id, tokenId: null, actor: user.email, ip: request.ip ?? null },
        'auth.sign_in',
        { type: 'member', id: user.id },
        { method: 'sso' },
      );
      response.redirect(303, next);
    } catch (error) {
      if (!(error instanceof SsoRefusal)) throw error;
      await this.audit.record(
        { userId: null, tokenId: null, actor: error.email ?? 'single sign-on', ip: request.ip ?? null },
        'auth.sign_in_failed',
        undefined,
        { method: 'sso', reason: error.message, ...(error.email ? { email: error.email } : {}) },
      );
      response.redirect(303, this.loginPageWith(error.message));
    }
  }

  private loginPageWith(message: string): string {
    return `/login?sso_error=${encodeURIComponent(message)}`;
  }

  private cookieOptions(): CookieOptions {
    return authCookieOptions(this.config, '/auth/sso');
  }
}
