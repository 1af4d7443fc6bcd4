import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiToken } from './api-token.entity';

/** A token found by its hash, with its account's standing at this moment (null: an operator token). */
export interface TokenWithAccount {
  token: ApiToken;
  user: { id: number; email: string; role: string; isActive: boolean } | null;
}

/** The api_tokens table: every statement on API tokens is here. */
@Injectable()
export class TokensRepository {
  constructor(@InjectRepository(ApiToken) private readonly tokens: Repository<ApiToken>) {}

  insert(token: {
    description: string;
    tokenHash: string;
    prefix: string;
    userId: number | null;
    readOnly: boolean;
    projectIds: number[] | null;
  }): Promise<ApiToken> {
    return this.tokens.save(this.tokens.create(token));
  }

  /** Every token (`userId` undefined), or those of one account, by id. */
  list(userId?: number): Promise<ApiToken[]> {
    return this.tokens.find({ where: userId === undefined ? {} : { userId }, order: { id: 'ASC' } });
  }

  findById(id: number): Promise<ApiToken | null> {
    return this.tokens.findOne({ where: { id } });
  }

  async delete(id: number): Promise<void> {
    await this.tokens.delete({ id });
  }

  /** The token with this hash and its account, read in one query; null when there is none. */
  async findByHashWithAccount(tokenHash: string): Promise<TokenWithAccount | null> {
    const rows: (Record<string, unknown> & { user_email: string | null })[] = await this.tokens.query(
      `SELECT t.id, u.id AS user_id, u.email AS user_email, u.role AS user_role, u.is_active AS user_active,
              t.read_only, t.project_ids, t.last_used_at
         FROM api_tokens t LEFT JOIN users u ON u.id = t.user_id
        WHERE t.token_hash = $1`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    const token = this.tokens.create({
      id: row.id as number,
      userId: row.user_id as number | null,
      readOnly: row.read_only as boolean,
      projectIds: row.project_ids as number[] | null,
      lastUsedAt: row.last_used_at as Date | null,
    });
    const user =
      row.user_id === null
        ? null
        : {
            id: row.user_id as number,
            email: row.user_email as string,
            role: row.user_role as string,
            isActive: row.user_active === true,
          };
    return { token, user };
  }

  async setLastUsedAt(id: number, at: Date): Promise<void> {
    await this.tokens.update({ id }, { lastUsedAt: at });
  }
}
