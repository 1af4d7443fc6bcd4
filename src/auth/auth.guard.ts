import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Identity, RouteAccessService } from '../access/route-access.service';
import { IS_PUBLIC } from '../common/public.decorator';
import { AppConfig } from '../config/app-config';
import { TOKEN_PATTERN, TokensService } from '../tokens/tokens.service';
import type { AuthenticatedRequest } from '../users/request-principal';
import type { User } from '../users/user.entity';
import { changesState, originOf, requestSite } from '../users/same-origin';
import { SESSION_COOKIE, SessionsService } from '../users/sessions.service';

export const CROSS_SITE_MESSAGE =
  'cross-site request refused: send it from the dashboard or with a bearer token';

/**
 * Global guard: every route needs a bearer token or a dashboard session unless marked @Public(),
 * and the permission it declares with @Requires (see RouteAccessService).
 * An Authorization header, when present, is authoritative: a bad token is a 401 even with a cookie.
 *
 * A browser attaches the cookie to requests that other sites make it send (a form posted to this
 * server, a fetch from another subdomain that SameSite=Lax lets through): a change made with the
 * cookie must show that it comes from this site. A bearer token is never sent by a browser unasked.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly publicOrigin: string;

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
    private readonly sessions: SessionsService,
    private readonly routes: RouteAccessService,
    config: AppConfig,
  ) {
    this.publicOrigin = originOf(config.publicUrl);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;

    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const identity = await this.authenticate(request);
    request.access = await this.routes.accessOf(identity);
    await this.routes.check(context, request.access);
    return true;
  }

  private async authenticate(request: AuthenticatedRequest): Promise<Identity> {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const match = /^(\S+)\s+(\S+)\s*$/.exec(header);
      if (!match || match[1].toLowerCase() !== 'bearer') {
        throw new UnauthorizedException('Authorization header must be "Bearer <token>"');
      }
      if (!TOKEN_PATTERN.test(match[2])) {
        throw new UnauthorizedException('token must be 40 hexadecimal characters');
      }
      const found = await this.tokens.authenticate(match[2]);
      if (!found) throw new UnauthorizedException('invalid or revoked token');
      const { token, user } = found;
      request.principal = { kind: 'token', tokenId: token.id };
      return {
        userId: user?.id ?? null,
        tokenId: token.id,
        role: user?.role ?? 'owner',
        actor: user ? `${user.email} (token ${token.id})` : `token ${token.id}`,
        readOnly: token.readOnly,
        tokenProjectIds: token.projectIds,
      };
    }

    const cookie = request.cookies?.[SESSION_COOKIE];
    if (
      cookie !== undefined &&
      changesState(request) &&
      requestSite(request, this.publicOrigin) !== 'same-origin'
    ) {
      throw new ForbiddenException(CROSS_SITE_MESSAGE);
    }
    const signedIn = await this.sessions.resolve(cookie);
    if (signedIn) {
      request.principal = { kind: 'user', userId: signedIn.user.id };
      return sessionIdentity(signedIn.user);
    }
    throw new UnauthorizedException('missing bearer token');
  }
}

/** Who a request signed in with a dashboard session acts as: its account, with the account's role. */
export function sessionIdentity(user: Pick<User, 'id' | 'role' | 'email'>): Identity {
  return {
    userId: user.id,
    tokenId: null,
    role: user.role,
    actor: user.email,
    readOnly: false,
    tokenProjectIds: null,
  };
}
