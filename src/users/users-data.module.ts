import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Session } from './session.entity';
import { SessionsRepository } from './sessions.repository';
import { User } from './user.entity';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

/** The accounts, without the sign-in routes and guard (for modules that look members up). */
@Module({
  imports: [TypeOrmModule.forFeature([User, Session])],
  providers: [UsersService, UsersRepository, SessionsRepository],
  exports: [UsersService, SessionsRepository],
})
export class UsersDataModule {}
