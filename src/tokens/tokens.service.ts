import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../common/domain-errors';
import { randomHex, sha256Hex } from '../common/crypto';
import { ApiToken } from './api-token.entity';
import type { TokenView } from './dto/token.response';

export type { TokenView };

export const TOKEN_PATTERN = /^[0-9a-fA-F]{40}$/;
const PREFIX_LENGTH = 8;
/** Writing last_used_at on every request would turn each read into a write; minute precision is enough. */
const LAST_USED_PRECISION_MS = 60_000;

/** What a new token may do, within its account's role. */
export interface TokenLimits {
  userId: number | null;
  readOnly: boolean;
  projectIds: number[] | null;
}

/** A token that authenticated, with its account's standing at this moment. */
export interface AuthenticatedToken {
  token: ApiToken;
  /** Null for an operator token. */
  user: { id: number; email: string; role: string } | null;
}

@Injectable()
export class TokensService {
  constructor(@InjectRepository(ApiToken) private readonly tokens: Repository<ApiToken>) {}

  async create(
    description: string,
    limits: TokenLimits = { userId: null, readOnly: false, projectIds: null },
  ): Promise<TokenView> {
    const token = randomHex(20);
    const saved = await this.tokens.save(
      this.tokens.create({
        description,
        tokenHash: sha256Hex(token),
        prefix: token.slice(0, PREFIX_LENGTH),
        userId: limits.userId,
        readOnly: limits.readOnly,
        projectIds: limits.projectIds === null ? null : [...new Set(limits.projectIds)].sort((a, b) => a - b),
      }),
    );
    return { ...this.toView(saved), token };
  }

  /** Every token (`ownerId` undefined), or those of one account. */
  async list(ownerId?: number): Promise<TokenView[]> {
    const found = await this.tokens.find({
      where: ownerId === undefined ? {} : { userId: ownerId },
      order: { id: 'ASC' },
    });
    return found.map((token) => this.toView(token));
  }

  /** A token: any (`ownerId` undefined) or one of this account's. */
  async find(id: number, ownerId?: number): Promise<ApiToken> {
    const found = await this.tokens.findOne({ where: { id } });
    if (!found || (ownerId !== undefined && found.userId !== ownerId))
      throw new NotFoundError('token not found');
    return found;
  }

  /** Deletes a token (found with `find`); it stops working at once. */
  async remove(token: ApiToken): Promise<void> {
    await this.tokens.delete({ id: token.id });
  }

  /**
   * The token and its account for a well-formed, existing token, or null; null too when its account
   * is deactivated, so that it stops working at the moment of the deactivation.
   */
  async authenticate(token: string): Promise<AuthenticatedToken | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const rows: (Record<string, unknown> & { user_email: string | null })[] = await this.tokens.query(
      `SELECT t.id, u.id AS user_id, u.email AS user_email, u.role AS user_role, u.is_active AS user_active,
              t.read_only, t.project_ids, t.last_used_at
         FROM api_tokens t LEFT JOIN users u ON u.id = t.user_id
        WHERE t.token_hash = $1`,
      [sha256Hex(token.toLowerCase())],
    );
    const row = rows[0];
    if (!row || (row.user_id !== null && row.user_active !== true)) return null;
    const found = this.tokens.create({
      id: row.id as number,
      userId: row.user_id as number | null,
      readOnly: row.read_only as boolean,
      projectIds: row.project_ids as number[] | null,
      lastUsedAt: row.last_used_at as Date | null,
    });
    const now = Date.now();
    if (!found.lastUsedAt || now - found.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      found.lastUsedAt = new Date(now);
      await this.tokens.update({ id: found.id }, { lastUsedAt: found.lastUsedAt });
    }
    const user =
      row.user_id === null
        ? null
        : { id: row.user_id as number, email: row.user_email as string, role: row.user_role as string };
    return { token: found, user };
  }

  private toView(token: ApiToken): TokenView {
    return {
      id: token.id,
      token: `${token.prefix}...****`,
      description: token.description,
      created_at: token.createdAt.toISOString(),
      last_used_at: token.lastUsedAt?.toISOString() ?? null,
      user_id: token.userId,
      read_only: token.readOnly,
      project_ids: token.projectIds,
    };
  }
}
