import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Role } from '../access/roles';
import { AuditLog } from '../audit/audit-log.service';
import { AppConfig } from '../config/app-config';
import { ConflictError } from '../common/domain-errors';
import { hashPassword, verifyPassword } from '../common/crypto';
import type { User } from './user.entity';
import { AccountChanges, UsersRepository } from './users.repository';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The accounts: every read and write of the users table goes through here (and UsersRepository). */
@Injectable()
export class UsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(UsersService.name);

  constructor(
    private readonly users: UsersRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  /**
   * CREATE_SUPERUSER, at every start: makes the account an owner if it does not exist, or resets its
   * password. An existing account keeps its role and standing: a deactivation or a demotion its
   * admins made is not undone by a restart.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.superuser || this.config.APP_ROLE === 'worker') return;
    const { email, password } = this.config.superuser;
    const existing = await this.findByEmail(email);
    const by = { userId: null, tokenId: null, actor: 'CREATE_SUPERUSER', ip: null };
    if (existing) {
      await this.setPassword(existing.id, password);
      await this.audit.record(by, 'auth.password_change', { type: 'member', id: existing.id }, { email });
    } else {
      const passwordHash = await hashPassword(password);
      const created = await this.create({ email, name: '', role: 'owner', passwordHash });
      await this.audit.record(
        by,
        'member.create',
        { type: 'member', id: created.id },
        { email, role: 'owner' },
      );
    }
    this.logger.log(`superuser ${email} is ready`);
  }

  /**
   * The operator's command (`user:create`): an active account with this password and role, made or
   * updated; what changed is in the audit log.
   */
  async createOrUpdate(email: string, password: string, role: Role = 'owner'): Promise<User> {
    const normalised = normaliseEmail(email);
    const before = await this.findByEmail(normalised);
    const passwordHash = await hashPassword(password);
    const user = await this.users.upsertActive(normalised, passwordHash, role);
    const by = { userId: null, tokenId: null, actor: 'command line', ip: null };
    const target = { type: 'member', id: user.id };
    if (!before) {
      await this.audit.record(by, 'member.create', target, { email: normalised, role });
      return user;
    }
    await this.audit.record(by, 'auth.password_change', target, { email: normalised });
    if (before.role !== role) {
      await this.audit.record(by, 'member.role_change', target, {
        email: normalised,
        from: before.role,
        to: role,
      });
    }
    if (!before.isActive) await this.audit.record(by, 'member.reactivate', target, { email: normalised });
    return user;
  }

  /** A new account; a ConflictError when the e-mail has one. */
  async create(
    account: {
      email: string;
      name: string;
      role: Role;
      passwordHash: string | null;
      oidc?: { issuer: string; subject: string };
    },
    manager?: EntityManager,
  ): Promise<User> {
    const created = await this.users.insert({ ...account, email: normaliseEmail(account.email) }, manager);
    if (!created) throw new ConflictError('an account with this e-mail exists already');
    return created;
  }

  /** The account for a password sign-in, or null (unknown, wrong password, deactivated, SSO only). */
  async verify(email: string, password: string): Promise<User | null> {
    const user = await this.findByEmail(email);
    if (!user?.passwordHash || !user.isActive) {
      // Spend the same time as for a real account, so response timing does not reveal which e-mails exist.
      await verifyPassword(password, await dummyHash());
      return null;
    }
    return (await verifyPassword(password, user.passwordHash)) ? user : null;
  }

  findById(id: number): Promise<User | null> {
    return this.users.findById(id);
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(normaliseEmail(email));
  }

  /** The account an identity provider's subject is linked to. */
  findByOidcSubject(issuer: string, subject: string): Promise<User | null> {
    return this.users.findByOidcSubject(issuer, subject);
  }

  /** Links an account to a provider's subject: later sign-ins find it by the subject, whatever the e-mail. */
  async linkOidcSubject(id: number, issuer: string, subject: string): Promise<void> {
    await this.users.linkOidcSubject(id, issuer, subject);
  }

  list(): Promise<User[]> {
    return this.users.list();
  }

  findByIds(ids: number[]): Promise<User[]> {
    return this.users.findByIds(ids);
  }

  /**
   * Changes an account under a lock on the owners, so that two requests cannot demote or deactivate
   * the last two owners at once; `check` sees the account and how many active owners there are.
   */
  async change(
    id: number,
    check: (user: User, activeOwners: number) => AccountChanges,
  ): Promise<{ before: User; after: User } | null> {
    return this.users.change(id, check);
  }

  async setPassword(id: number, password: string): Promise<void> {
    await this.users.setPasswordHash(id, await hashPassword(password));
  }

  async setEmailNotifications(id: number, enabled: boolean): Promise<void> {
    await this.users.setEmailNotifications(id, enabled);
  }

  async setName(id: number, name: string): Promise<void> {
    await this.users.setName(id, name);
  }
}

let dummy: Promise<string> | undefined;
function dummyHash(): Promise<string> {
  // Not kept when it fails (a busy hasher): every later sign-in for an unknown e-mail would fail too.
  dummy ??= hashPassword('not-a-real-password').catch((error: unknown) => {
    dummy = undefined;
    throw error;
  });
  return dummy;
}
