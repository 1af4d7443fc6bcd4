import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../common/public.decorator';
import { TOKEN_PATTERN, TokensService } from '../tokens/tokens.service';
import type { AuthenticatedRequest } from './request-principal';
import { SESSION_COOKIE, SessionsService } from './sessions.service';

/**
 * Global guard: every route needs a bearer token or a dashboard session unless marked @Public().
 * An Authorization header, when present, is authoritative: a bad token is a 401 even with a cookie.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
    private readonly sessions: SessionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;

    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    if (header !== undefined) {
      const match = /^(\S+)\s+(\S+)\s*$/.exec(header);
      if (!match || match[1].toLowerCase() !== 'bearer') {
        throw new UnauthorizedException('Authorization header must be "Bearer <token>"');
      }
      if (!TOKEN_PATTERN.test(match[2])) {
        throw new UnauthorizedException('token must be 40 hexadecimal characters');
      }
      const token = await this.tokens.authenticate(match[2]);
      if (!token) throw new UnauthorizedException('invalid or revoked token');
      request.principal = { kind: 'token', tokenId: token.id };
      return true;
    }

    const session = await this.sessions.resolve(request.cookies?.[SESSION_COOKIE]);
    if (session) {
      request.principal = { kind: 'user', userId: session.userId };
      return true;
    }
    throw new UnauthorizedException('missing bearer token');
  }
}
