import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { randomHex, sha256Hex } from '../common/crypto';
import { Session } from './session.entity';

export const SESSION_COOKIE = 'et_session';

@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(Session) private readonly sessions: Repository<Session>,
    private readonly config: AppConfig,
  ) {}

  get ttlMs(): number {
    return this.config.SESSION_TTL_HOURS * 3_600_000;
  }

  /** Returns the cookie value; only its hash is stored. */
  async start(userId: number): Promise<string> {
    const secret = randomHex(32);
    await this.sessions.delete({ expiresAt: LessThan(new Date()) });
    await this.sessions.insert({
      tokenHash: sha256Hex(secret),
      userId,
      expiresAt: new Date(Date.now() + this.ttlMs),
    });
    return secret;
  }

  async resolve(secret: string | undefined): Promise<Session | null> {
    if (!secret || !/^[0-9a-f]{64}$/.test(secret)) return null;
    const session = await this.sessions.findOne({ where: { tokenHash: sha256Hex(secret) } });
    if (!session || session.expiresAt.getTime() <= Date.now()) return null;
    return session;
  }

  async end(secret: string | undefined): Promise<void> {
    if (secret) await this.sessions.delete({ tokenHash: sha256Hex(secret) });
  }
}
