import {
  Body,
  Controller,
  Delete,
  ForbiddenException,
  Get,
  Header,
  HttpCode,
  Param,
  Patch,
  Post,
  Req,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access, CurrentAccess } from '../access/access';
import { permissionsOf } from '../access/roles';
import { Requires } from '../access/route-access.decorator';
import { RouteAccessService } from '../access/route-access.service';
import { actorOf, AuditLog } from '../audit/audit-log.service';
import { AppConfig } from '../config/app-config';
import { InvalidInputError, NotFoundError } from '../common/domain-errors';
import { Public } from '../common/public.decorator';
import { ChangePasswordDto, UpdateAccountDto } from '../users/dto/account.dto';
import { LoginDto } from './dto/login.dto';
import { LoginThrottle } from '../users/login-throttle.service';
import type { AuthenticatedRequest } from '../users/request-principal';
import { originOf, requestSite } from '../users/same-origin';
import { SessionCookie } from '../users/session-cookie';
import { SESSION_COOKIE, SessionsService } from '../users/sessions.service';
import { SessionView } from '../users/dto/session.response';
import { ApiErrors, ListOf } from '../http/api-responses';
import { sessionIdentity } from './auth.guard';
import { MeView, SessionState, SignedIn } from './dto/auth.response';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  private readonly publicOrigin: string;

  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly cookie: SessionCookie,
    private readonly throttle: LoginThrottle,
    private readonly audit: AuditLog,
    private readonly routes: RouteAccessService,
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
  @ApiOkResponse({ type: SignedIn })
  @ApiErrors(
    400,
    [401, 'Wrong e-mail or password.'],
    [403, 'A cross-site request, or sign-in by password turned off.'],
    429,
    503,
  )
  async login(
    @Body() body: LoginDto,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SignedIn> {
    if (requestSite(request, this.publicOrigin) === 'cross-site') {
      throw new ForbiddenException('cross-site sign-in refused');
    }
    if (!this.config.PASSWORD_LOGIN) {
      throw new ForbiddenException(
        `sign-in by password is turned off: sign in with ${this.config.OIDC_NAME}`,
      );
    }
    await this.throttle.attempt(body.email, request.ip, response);
    const user = await this.users.verify(body.email, body.password);
    if (!user) {
      await this.audit.record(
        {
          userId: null,
          tokenId: null,
          actor: body.email.trim().toLowerCase().slice(0, 320),
          ip: request.ip ?? null,
        },
        'auth.sign_in_failed',
        undefined,
        { email: body.email.trim().toLowerCase().slice(0, 320) },
      );
      throw new UnauthorizedException('invalid e-mail or password');
    }
    await this.throttle.succeeded(body.email);
    await this.cookie.signIn(request, response, user.id);
    await this.audit.record(
      { userId: user.id, tokenId: null, actor: user.email, ip: request.ip ?? null },
      'auth.sign_in',
      { type: 'member', id: user.id },
      { method: 'password' },
    );
    return { id: user.id, email: user.email };
  }

  @Public()
  @Post('logout')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Signed out: the session ends and its cookie is cleared.' })
  @ApiErrors([403, 'A cross-site request.'])
  async logout(
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    if (requestSite(request, this.publicOrigin) === 'cross-site') {
      throw new ForbiddenException('cross-site sign-out refused');
    }
    await this.cookie.signOut(request, response);
  }

  /**
   * Whether this browser is signed in, answered without an error either way: the dashboard asks at
   * every load, and a 401 from /auth/me would be an error in the console of each sign-in page. Only
   * the session cookie counts (a token's caller asks /auth/me, which keeps its 401).
   */
  @Public()
  @Get('session')
  @Header('Cache-Control', 'no-store')
  @ApiOkResponse({ type: SessionState })
  async session(@Req() request: AuthenticatedRequest): Promise<SessionState> {
    const signedIn = await this.sessions.resolve(request.cookies?.[SESSION_COOKIE]);
    if (!signedIn) return { user: null };
    const access = await this.routes.accessOf(sessionIdentity(signedIn.user));
    return { user: await this.me(access) };
  }

  @Get('me')
  @Requires('account')
  @ApiOkResponse({ type: MeView })
  async me(@CurrentAccess() access: Access): Promise<MeView> {
    const user = access.userId === null ? null : await this.users.findById(access.userId);
    if (access.userId !== null && !user) throw new UnauthorizedException('the account no longer exists');
    return {
      kind: access.tokenId === null ? 'user' : 'token',
      id: access.tokenId ?? (user as User).id,
      user_id: user?.id ?? null,
      ...(user ? { email: user.email } : {}),
      name: user?.name ?? '',
      role: access.role,
      permissions: permissionsOf(access),
      read_only: access.readOnly,
      project_ids: access.projects === 'all' ? null : [...access.projects].sort((a, b) => a - b),
      email_notifications: user?.emailNotifications ?? false,
      sso_linked: (user?.oidcSubject ?? null) !== null,
    };
  }

  /** One's name and whether personal e-mails are wanted. */
  @Patch('me')
  @Requires('account')
  @ApiOkResponse({ type: MeView })
  @ApiErrors([400, 'Invalid, or an operator token (it has no account).'])
  async updateMe(@CurrentAccess() access: Access, @Body() body: UpdateAccountDto): Promise<MeView> {
    const userId = accountOf(access);
    if (body.name !== undefined) await this.users.setName(userId, body.name.trim());
    if (body.email_notifications !== undefined) {
      await this.users.setEmailNotifications(userId, body.email_notifications);
    }
    return this.me(access);
  }

  /** Needs the current password; every other session of the account ends. */
  @Post('password')
  @HttpCode(204)
  @Requires('account')
  @ApiNoContentResponse({ description: 'Changed; every other session of the account ended.' })
  @ApiErrors(
    [400, 'Invalid, the current password is wrong, or the account signs in through single sign-on.'],
    429,
    503,
  )
  async changePassword(
    @CurrentAccess() access: Access,
    @Req() request: AuthenticatedRequest,
    @Body() body: ChangePasswordDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const account = await this.users.findById(accountOf(access));
    if (!account) throw new UnauthorizedException('the account no longer exists');
    if (!account.passwordHash) throw new InvalidInputError('this account signs in through single sign-on');
    // Guessing the current password here is throttled and audited as sign-ins are.
    await this.throttle.attempt(account.email, request.ip, response);
    if (!(await this.users.verify(account.email, body.current_password))) {
      await this.audit.record(actorOf(access, request.ip), 'auth.password_change_failed', {
        type: 'member',
        id: account.id,
      });
      throw new InvalidInputError('current_password is not the password of this account');
    }
    await this.throttle.succeeded(account.email);
    await this.users.setPassword(account.id, body.new_password);
    await this.sessions.endAllOf(
      account.id,
      access.tokenId === null ? request.cookies?.[SESSION_COOKIE] : undefined,
    );
    await this.audit.record(actorOf(access, request.ip), 'auth.password_change', {
      type: 'member',
      id: account.id,
    });
  }

  @Get('sessions')
  @Requires('account')
  @ApiOkResponse({ type: ListOf(SessionView) })
  @ApiErrors([400, 'An operator token (it has no account).'])
  async listSessions(
    @CurrentAccess() access: Access,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ data: SessionView[] }> {
    return { data: await this.sessions.list(accountOf(access), request.cookies?.[SESSION_COOKIE]) };
  }

  @Delete('sessions/:id')
  @HttpCode(204)
  @Requires('account')
  @ApiNoContentResponse({ description: 'Ended: that browser is signed out.' })
  @ApiErrors([400, 'An operator token (it has no account).'], 404)
  async endSession(@CurrentAccess() access: Access, @Param('id') id: string): Promise<void> {
    if (!(await this.sessions.endById(accountOf(access), id))) throw new NotFoundError('session not found');
  }
}

/** The account a request acts for; an operator token has none. */
function accountOf(access: Access): number {
  if (access.userId === null) throw new InvalidInputError('an operator token has no account');
  return access.userId;
}
