import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Session } from './session.entity';
import { SessionsRepository } from './sessions.repository';
import { User } from './user.entity';
import { UsersRepository } from './users.repository';

/** The accounts' and sessions' rows, without services or routes (retention trims the sessions). */
@Module({
  imports: [TypeOrmModule.forFeature([User, Session])],
  providers: [UsersRepository, SessionsRepository],
  exports: [UsersRepository, SessionsRepository],
})
export class UsersDataModule {}
