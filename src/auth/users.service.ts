import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { hashPassword, verifyPassword } from '../common/crypto';
import { User } from './user.entity';

@Injectable()
export class UsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(UsersService.name);

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly config: AppConfig,
  ) {}

  /** CREATE_SUPERUSER creates the account, or resets its password, at every start. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.superuser && this.config.APP_ROLE !== 'worker') {
      await this.createOrUpdate(this.config.superuser.email, this.config.superuser.password);
      this.logger.log(`superuser ${this.config.superuser.email} is ready`);
    }
  }

  async createOrUpdate(email: string, password: string): Promise<User> {
    const normalised = email.trim().toLowerCase();
    const passwordHash = await hashPassword(password);
    await this.users.upsert({ email: normalised, passwordHash }, ['email']);
    return this.users.findOneOrFail({ where: { email: normalised } });
  }

  async verify(email: string, password: string): Promise<User | null> {
    const user = await this.users.findOne({ where: { email: email.trim().toLowerCase() } });
    if (!user) {
      // Spend the same time as for a real account, so response timing does not reveal which e-mails exist.
      await verifyPassword(password, await dummyHash());
      return null;
    }
    return (await verifyPassword(password, user.passwordHash)) ? user : null;
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOne({ where: { id } });
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
