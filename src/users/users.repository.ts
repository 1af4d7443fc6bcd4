import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Role } from '../access/roles';
import { User } from './user.entity';

/** What can change of an account through `change`. */
export type AccountChanges = Partial<Pick<User, 'role' | 'isActive' | 'name'>>;

/** The users table: every statement on the accounts is here. E-mails arrive normalised. */
@Injectable()
export class UsersRepository {
  constructor(@InjectRepository(User) private readonly users: Repository<User>) {}

  findById(id: number): Promise<User | null> {
    return this.users.findOne({ where: { id } });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findOne({ where: { email } });
  }

  findByOidcSubject(issuer: string, subject: string): Promise<User | null> {
    return this.users.findOne({ where: { oidcIssuer: issuer, oidcSubject: subject } });
  }

  list(): Promise<User[]> {
    return this.users.find({ order: { id: 'ASC' } });
  }

  async findByIds(ids: number[]): Promise<User[]> {
    if (ids.length === 0) return [];
    return this.users.createQueryBuilder('user').where('user.id = ANY(:ids)', { ids }).getMany();
  }

  /** Inserts an account; null when the e-mail has one already. */
  async insert(
    account: {
      email: string;
      name: string;
      role: Role;
      passwordHash: string | null;
      oidc?: { issuer: string; subject: string };
    },
    manager: EntityManager = this.users.manager,
  ): Promise<User | null> {
    const rows: { id: number }[] = await manager.query(
      `INSERT INTO users (email, name, role, password_hash, oidc_issuer, oidc_subject) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (email) DO NOTHING RETURNING id`,
      [
        account.email,
        account.name,
        account.role,
        account.passwordHash,
        account.oidc?.issuer ?? null,
        account.oidc?.subject ?? null,
      ],
    );
    if (rows.length === 0) return null;
    return manager.getRepository(User).findOneOrFail({ where: { id: rows[0].id } });
  }

  /** An active account with this password and role, inserted or updated. */
  async upsertActive(email: string, passwordHash: string, role: Role): Promise<User> {
    await this.users.upsert({ email, passwordHash, role, isActive: true, deactivatedAt: null }, ['email']);
    return this.users.findOneOrFail({ where: { email } });
  }

  /**
   * Changes an account under a lock on the active owners, so that two requests cannot demote or
   * deactivate the last two owners at once; `check` sees the account and how many active owners
   * there are, and returns the changes. Null when there is no such account.
   */
  async change(
    id: number,
    check: (user: User, activeOwners: number) => AccountChanges,
  ): Promise<{ before: User; after: User } | null> {
    return this.users.manager.transaction(async (manager) => {
      const owners: { id: number }[] = await manager.query(
        `SELECT id FROM users WHERE role = 'owner' AND is_active ORDER BY id FOR UPDATE`,
      );
      const before = await manager
        .getRepository(User)
        .findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!before) return null;
      const changes = check(before, owners.length);
      const deactivating = changes.isActive === false && before.isActive;
      await manager.getRepository(User).update(
        { id },
        {
          ...changes,
          ...(deactivating ? { deactivatedAt: new Date() } : {}),
          ...(changes.isActive === true ? { deactivatedAt: null } : {}),
        },
      );
      const after = await manager.getRepository(User).findOneOrFail({ where: { id } });
      return { before, after };
    });
  }

  async linkOidcSubject(id: number, issuer: string, subject: string): Promise<void> {
    await this.users.update({ id }, { oidcIssuer: issuer, oidcSubject: subject });
  }

  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.users.update({ id }, { passwordHash });
  }

  async setEmailNotifications(id: number, enabled: boolean): Promise<void> {
    await this.users.update({ id }, { emailNotifications: enabled });
  }

  async setName(id: number, name: string): Promise<void> {
    await this.users.update({ id }, { name });
  }
}
