import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { Session } from './session.entity';
import { User } from './user.entity';

/** The sessions table: every statement on sign-in sessions is here. Sessions are named by the hash of their cookie. */
@Injectable()
export class SessionsRepository {
  constructor(@InjectRepository(Session) private readonly sessions: Repository<Session>) {}

  async insert(session: {
    tokenHash: string;
    userId: number;
    expiresAt: Date;
    userAgent: string | null;
    ip: string | null;
  }): Promise<void> {
    await this.sessions.insert(session);
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.sessions.delete({ expiresAt: LessThan(now) });
  }

  /** Deletes up to `limit` sessions expired by `now` (retention's batches); returns how many went. */
  async deleteExpiredBatch(now: Date, limit: number): Promise<number> {
    const [, deleted] = (await this.sessions.query(
      `DELETE FROM sessions WHERE token_hash = ANY(ARRAY(
         SELECT token_hash FROM sessions WHERE expires_at < $1 LIMIT $2))`,
      [now, limit],
    )) as [unknown, number];
    return deleted;
  }

  /** The session with this hash and its account (expired or deactivated ones included). */
  async findWithUser(tokenHash: string): Promise<{ session: Session; user: User | undefined } | null> {
    const session = await this.sessions
      .createQueryBuilder('session')
      .innerJoinAndMapOne('session.user', User, 'user', 'user.id = session.userId')
      .where('session.token_hash = :hash', { hash: tokenHash })
      .getOne();
    if (!session) return null;
    return { session, user: (session as Session & { user?: User }).user };
  }

  async deleteByTokenHash(tokenHash: string): Promise<void> {
    await this.sessions.delete({ tokenHash });
  }

  /** An account's sessions, newest first (expired ones included). */
  listOf(userId: number): Promise<Session[]> {
    return this.sessions.find({ where: { userId }, order: { createdAt: 'DESC' } });
  }

  /** Deletes the account's session whose hash starts with `prefix`; false when it has none. */
  async deleteByHashPrefix(userId: number, prefix: string): Promise<boolean> {
    const [, count] = await this.sessions.query(
      `DELETE FROM sessions WHERE user_id = $1 AND left(token_hash, ${prefix.length}) = $2`,
      [userId, prefix],
    );
    return count > 0;
  }

  /** Deletes every session of an account except the one with `keepHash` ('' keeps none). */
  async deleteAllOfExcept(userId: number, keepHash: string): Promise<void> {
    await this.sessions.query(`DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2`, [
      userId,
      keepHash,
    ]);
  }
}
