import { Controller, Get, HttpCode, Logger, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { CookieOptions, Response } from 'express';
import { AuditLog } from '../../audit/audit-log.service';
import { Public } from '../../common/public.decorator';
import { AppConfig } from '../../config/app-config';
import type { AuthenticatedRequest } from '../../users/request-principal';
import { authCookieOptions, SessionCookie } from '../../users/session-cookie';
import { SESSION_COOKIE, SessionsService } from '../../users/sessions.service';
import { OidcSignIn, SsoRefusal } from './oidc-sign-in.service';
import { SsoSettings } from '../dto/auth.response';

const LOCATION = { Location: { description: 'Where the browser goes.', schema: { type: 'string' } } };

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
  private readonly logger = new Logger('SingleSignOn');

  constructor(
    private readonly sso: OidcSignIn,
    private readonly cookie: SessionCookie,
    private readonly sessions: SessionsService,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
  ) {}

  /** What the sign-in page offers. */
  @Public()
  @Get()
  @ApiOkResponse({ type: SsoSettings })
  settings(): SsoSettings {
    return {
      enabled: this.sso.enabled,
      name: this.config.OIDC_NAME,
      password_login: this.config.PASSWORD_LOGIN,
    };
  }

  /**
   * `next`: the dashboard path to return to (paths of this site only). `link=1`, signed in: link
   * this account to the identity at the provider (how admins and owners do it; see OidcSignIn).
   */
  @Public()
  @Get('start')
  @ApiResponse({
    status: 303,
    description: 'To the identity provider, or back to the sign-in page with the reason as a code (`sso_error`).',
    headers: LOCATION,
  })
  async start(
    @Query('next') next: unknown,
    @Query('link') link: unknown,
    @Req() request: AuthenticatedRequest,
    @Res() response: Response,
  ): Promise<void> {
    try {
      let linkUserId: number | undefined;
      if (link === '1') {
        const signedIn = await this.sessions.resolve(request.cookies?.[SESSION_COOKIE]);
        if (!signedIn) throw new SsoRefusal('sign_in_first', 'sign in first to link your identity');
        linkUserId = signedIn.user.id;
      }
      const { url, secret } = await this.sso.start(next, linkUserId);
      response.cookie(SSO_COOKIE, secret, { ...this.cookieOptions(), maxAge: 600_000 });
      response.redirect(303, url);
    } catch (error) {
      if (!(error instanceof SsoRefusal)) throw error;
      response.redirect(303, this.loginPageWith(error));
    }
  }

  @Public()
  @Get('callback')
  @HttpCode(303)
  @ApiResponse({
    status: 303,
    description:
      'Signed in, to the dashboard path asked for; or to the sign-in page with the reason as a code (`sso_error`).',
    headers: LOCATION,
  })
  async callback(@Req() request: AuthenticatedRequest, @Res() response: Response): Promise<void> {
    const secret = request.cookies?.[SSO_COOKIE];
    response.clearCookie(SSO_COOKIE, this.cookieOptions());
    const query = request.originalUrl.includes('?')
      ? request.originalUrl.slice(request.originalUrl.indexOf('?') + 1)
      : '';
    try {
      const { user, next, outcome } = await this.sso.finish(secret, query);
      await this.cookie.signIn(request, response, user.id);
      const by = { userId: user.id, tokenId: null, actor: user.email, ip: request.ip ?? null };
      const target = { type: 'member', id: user.id };
      if (outcome === 'linked')
        await this.audit.record(by, 'auth.sso_link', target, { subject: user.oidcSubject });
      if (outcome === 'created')
        await this.audit.record(by, 'member.create', target, { role: user.role, method: 'sso' });
      if (outcome === 'invited')
        await this.audit.record(by, 'invitation.accept', target, { role: user.role, method: 'sso' });
      await this.audit.record(by, 'auth.sign_in', target, { method: 'sso' });
      response.redirect(303, next);
    } catch (caught) {
      // Whatever went wrong, the browser goes back to the sign-in page with a reason, not to JSON.
      const error =
        caught instanceof SsoRefusal
          ? caught
          : new SsoRefusal('failed', 'the sign-in could not be completed; try again');
      if (!(caught instanceof SsoRefusal))
        this.logger.error({ err: caught }, `single sign-on failed: ${String(caught)}`);
      await this.audit.record(
        { userId: null, tokenId: null, actor: error.email ?? 'single sign-on', ip: request.ip ?? null },
        'auth.sign_in_failed',
        undefined,
        { method: 'sso', reason: error.message, ...(error.email ? { email: error.email } : {}) },
      );
      response.redirect(303, this.loginPageWith(error));
    }
  }

  /** The reason as a code: the detailed message is the audit log's (see SSO_ERROR_CODES). */
  private loginPageWith(refusal: SsoRefusal): string {
    return `/login?sso_error=${refusal.code}`;
  }

  private cookieOptions(): CookieOptions {
    return authCookieOptions(this.config, '/auth/sso');
  }
}
