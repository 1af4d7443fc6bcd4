import { Injectable } from '@nestjs/common';
import type { CookieOptions, Response } from 'express';
import { AppConfig } from '../config/app-config';
import type { AuthenticatedRequest } from './request-principal';
import { SESSION_COOKIE, SessionsService } from './sessions.service';

/** Signing a browser in and out: the session and its cookie together. */
@Injectable()
export class SessionCookie {
  constructor(
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
  ) {}

  async signIn(request: AuthenticatedRequest, response: Response, userId: number): Promise<void> {
    // A new session id at every sign-in: a cookie planted before it (session fixation) ends here,
    // once the new session exists (a failure in between leaves the old one usable).
    const secret = await this.sessions.start(userId, {
      userAgent: request.headers['user-agent'],
      ip: request.ip,
    });
    await this.sessions.end(request.cookies?.[SESSION_COOKIE]);
    response.cookie(SESSION_COOKIE, secret, { ...this.options(), maxAge: this.sessions.ttlMs });
  }

  async signOut(request: AuthenticatedRequest, response: Response): Promise<void> {
    await this.sessions.end(request.cookies?.[SESSION_COOKIE]);
    response.clearCookie(SESSION_COOKIE, this.options());
  }

  private options(): CookieOptions {
    return authCookieOptions(this.config, '/');
  }
}

/**
 * The sign-in cookies: httpOnly, Secure under https, and SameSite=Lax, which a provider's redirect
 * back (a top-level GET) carries and another site's form post does not.
 */
export function authCookieOptions(config: AppConfig, path: string): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.COOKIE_SECURE ?? config.publicUrl.startsWith('https://'),
    path,
  };
}
