import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Role } from '../access/roles';
import { AuditLog } from '../audit/audit-log.service';
import { AppConfig } from '../config/app-config';
import { ConflictError } from '../common/domain-errors';
import { hashPassword, verifyPassword } from '../common/crypto';
import { User } from './user.entity';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The accounts: every read and write of the users table goes through here. */
@Injectable()
export class UsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(UsersService.name);

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
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
    await this.users.upsert({ email: normalised, passwordHash, role, isActive: true, deactivatedAt: null }, [
      'email',
    ]);
    const user = await this.users.findOneOrFail({ where: { email: normalised } });
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
    manager: EntityManager = this.users.manager,
  ): Promise<User> {
    const rows: User[] = await manager.query(
      `INSERT INTO users (email, name, role, password_hash, oidc_issuer, oidc_subject) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (email) DO NOTHING RETURNING id`,
      [
        normaliseEmail(account.email),
        account.name,
        account.role,
        account.passwordHash,
        account.oidc?.issuer ?? null,
        account.oidc?.subject ?? null,
      ],
    );
    if (rows.length === 0) throw new ConflictError('an account with this e-mail exists already');
    return manager.getRepository(User).findOneOrFail({ where: { id: rows[0].id } });
  }

  /** The account for a password sign-in, or null (unknown, wrong password, deactivated, SSO only). */
  async verify(email: string, password: string): Promise<User | null> {
    const user = await this.users.findOne({ where: { email: normaliseEmail(email) } });
    if (!user?.passwordHash || !user.isActive) {
      // Spend the same time as for a real account, so response timing does not reveal which e-mails exist.
      await verifyPassword(password, await dummyHash());
      return null;
    }
    return (await verifyPassword(password, user.passwordHash)) ? user : null;
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOne({ where: { id } });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findOne({ where: { email: normaliseEmail(email) } });
  }

  /** The account an identity provider's subject is linked to. */
  findByOidcSubject(issuer: string, subject: string): Promise<User | null> {
    return this.users.findOne({ where: { oidcIssuer: issuer, oidcSubject: subject } });
  }

  /** Links an account to a provider's subject: later sign-ins find it by the subject, whatever the e-mail. */
  async linkOidcSubject(id: number, issuer: string, subject: string): Promise<void> {
    await this.users.update({ id }, { oidcIssuer: issuer, oidcSubject: subject });
  }

  list(): Promise<User[]> {
    return this.users.find({ order: { id: 'ASC' } });
  }

  async findByIds(ids: number[]): Promise<User[]> {
    if (ids.length === 0) return [];
    return this.users.createQueryBuilder('user').where('user.id = ANY(:ids)', { ids }).getMany();
  }

  /**
   * Changes an account under a lock on the owners, so that two requests cannot demote or deactivate
   * the last two owners at once; `check` sees the account and how many active owners there are.
   */
  async change(
    id: number,
    check: (user: User, activeOwners: number) => Partial<Pick<User, 'role' | 'isActive' | 'name'>>,
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

  async setPassword(id: number, password: string): Promise<void> {
    await this.users.update({ id }, { passwordHash: await hashPassword(password) });
  }

  async setEmailNotifications(id: number, enabled: boolean): Promise<void> {
    await this.users.update({ id }, { emailNotifications: enabled });
  }

  async setName(id: number, name: string): Promise<void> {
    await this.users.update({ id }, { name });
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
