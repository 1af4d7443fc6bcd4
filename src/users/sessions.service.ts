import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { randomHex, sha256Hex } from '../common/crypto';
import type { Session } from './session.entity';
import { SessionsRepository } from './sessions.repository';
import type { User } from './user.entity';
import type { SessionView } from './dto/session.response';

export type { SessionView };

export const SESSION_COOKIE = 'et_session';

/** How a session is named in its account's list: the start of its hash, which reveals nothing of the cookie. */
const SESSION_ID_LENGTH = 16;
const SESSION_ID = /^[0-9a-f]{16}$/;

@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly config: AppConfig,
  ) {}

  get ttlMs(): number {
    return this.config.SESSION_TTL_HOURS * 3_600_000;
  }

  /** Returns the cookie value; only its hash is stored. */
  async start(userId: number, from: { userAgent?: string; ip?: string } = {}): Promise<string> {
    const secret = randomHex(32);
    await this.sessions.deleteExpired(new Date());
    await this.sessions.insert({
      tokenHash: sha256Hex(secret),
      userId,
      expiresAt: new Date(Date.now() + this.ttlMs),
      userAgent: from.userAgent?.slice(0, 300) ?? null,
      ip: from.ip ?? null,
    });
    return secret;
  }

  /** The session and its account, while both are valid: a deactivated account's sessions stop at once. */
  async resolve(secret: string | undefined): Promise<{ session: Session; user: User } | null> {
    if (!secret || !/^[0-9a-f]{64}$/.test(secret)) return null;
    const found = await this.sessions.findWithUser(sha256Hex(secret));
    const session = found?.session;
    const user = found?.user;
    if (!session || !user || !user.isActive || session.expiresAt.getTime() <= Date.now()) return null;
    return { session, user };
  }

  async end(secret: string | undefined): Promise<void> {
    if (secret) await this.sessions.deleteByTokenHash(sha256Hex(secret));
  }

  async list(userId: number, currentSecret: string | undefined): Promise<SessionView[]> {
    const current = currentSecret ? sha256Hex(currentSecret) : undefined;
    const rows = await this.sessions.listOf(userId);
    return rows
      .filter((session) => session.expiresAt.getTime() > Date.now())
      .map((session) => ({
        id: session.tokenHash.slice(0, SESSION_ID_LENGTH),
        created_at: session.createdAt.toISOString(),
        expires_at: session.expiresAt.toISOString(),
        user_agent: session.userAgent,
        ip: session.ip,
        current: session.tokenHash === current,
      }));
  }

  /** Ends one of an account's sessions by its listed id; false when it has none by that id. */
  async endById(userId: number, id: string): Promise<boolean> {
    if (!SESSION_ID.test(id)) return false;
    return this.sessions.deleteByHashPrefix(userId, id);
  }

  /** Ends every session of an account but `keepSecret`'s (after a password change, a deactivation). */
  async endAllOf(userId: number, keepSecret?: string): Promise<void> {
    await this.sessions.deleteAllOfExcept(userId, keepSecret ? sha256Hex(keepSecret) : '');
  }
}
