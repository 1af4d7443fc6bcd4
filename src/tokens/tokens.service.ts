import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../common/domain-errors';
import { randomHex, sha256Hex } from '../common/crypto';
import { ApiToken } from './api-token.entity';

export const TOKEN_PATTERN = /^[0-9a-fA-F]{40}$/;
const PREFIX_LENGTH = 8;
/** Writing last_used_at on every request would turn each read into a write; minute precision is enough. */
const LAST_USED_PRECISION_MS = 60_000;

export interface TokenView {
  id: number;
  token: string;
  description: string;
  created_at: string;
  last_used_at: string | null;
}

@Injectable()
export class TokensService {
  constructor(@InjectRepository(ApiToken) private readonly tokens: Repository<ApiToken>) {}

  async create(description: string): Promise<TokenView> {
    const token = randomHex(20);
    const saved = await this.tokens.save(
      this.tokens.create({
        description,
        tokenHash: sha256Hex(token),
        prefix: token.slice(0, PREFIX_LENGTH),
      }),
    );
    return { ...this.toView(saved), token };
  }

  async list(): Promise<TokenView[]> {
    const all = await this.tokens.find({ order: { id: 'ASC' } });
    return all.map((token) => this.toView(token));
  }

  async remove(id: number): Promise<void> {
    const result = await this.tokens.delete({ id });
    if (!result.affected) throw new NotFoundError('token not found');
  }

  /** Returns the token row for a well-formed, existing token, or null. */
  async authenticate(token: string): Promise<ApiToken | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const found = await this.tokens.findOne({ where: { tokenHash: sha256Hex(token.toLowerCase()) } });
    if (!found) return null;
    const now = Date.now();
    if (!found.lastUsedAt || now - found.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
      found.lastUsedAt = new Date(now);
      await this.tokens.update({ id: found.id }, { lastUsedAt: found.lastUsedAt });
    }
    return found;
  }

  private toView(token: ApiToken): TokenView {
    return {
      id: token.id,
      token: `${token.prefix}...****`,
      description: token.description,
      created_at: token.createdAt.toISOString(),
      last_used_at: token.lastUsedAt?.toISOString() ?? null,
    };
  }
}
