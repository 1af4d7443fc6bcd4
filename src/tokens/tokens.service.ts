import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-errors';
import { randomHex, sha256Hex } from '../common/crypto';
import type { ApiToken } from './api-token.entity';
import { TokensRepository } from './tokens.repository';
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
  constructor(private readonly tokens: TokensRepository) {}

  async create(
    description: string,
    limits: TokenLimits = { userId: null, readOnly: false, projectIds: null },
  ): Promise<TokenView> {
    const token = randomHex(20);
    const saved = await this.tokens.insert({
      description,
      tokenHash: sha256Hex(token),
      prefix: token.slice(0, PREFIX_LENGTH),
      userId: limits.userId,
      readOnly: limits.readOnly,
      projectIds: limits.projectIds === null ? null : [...new Set(limits.projectIds)].sort((a, b) => a - b),
    });
    return { ...this.toView(saved), token };
  }

  /** Every token (`ownerId` undefined), or those of one account. */
  async list(ownerId?: number): Promise<TokenView[]> {
    const found = await this.tokens.list(ownerId);
    return found.map((token) => this.toView(token));
  }

  /** A token: any (`ownerId` undefined) or one of this account's. */
  async find(id: number, ownerId?: number): Promise<ApiToken> {
    const found = await this.tokens.findById(id);
    if (!found || (ownerId !== undefined && found.userId !== ownerId))
      throw new NotFoundError('token not found');
    return found;
  }

  /** Deletes a token (found with `find`); it stops working at once. */
  async remove(token: ApiToken): Promise<void> {
    await this.tokens.delete(token.id);
  }

  /**
   * The token and its account for a well-formed, existing token, or null; null too when its account
   * is deactivated, so that it stops working at the moment of the deactivation.
   */
  async authenticate(token: string): Promise<AuthenticatedToken | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const found = await this.tokens.findByHashWithAccount(sha256Hex(token.toLowerCase()));
    if (!found || (found.user !== null && !found.user.isActive)) return null;
    const now = Date.now();
    if (!found.token.lastUsedAt || now - found.token.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      found.token.lastUsedAt = new Date(now);
      await this.tokens.setLastUsedAt(found.token.id, found.token.lastUsedAt);
    }
    const user =
      found.user === null ? null : { id: found.user.id, email: found.user.email, role: found.user.role };
    return { token: found.token, user };
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
