import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersDataModule } from '../users/users-data.module';
import { ProjectsModule } from '../projects/projects.module';
import { ApiToken } from './api-token.entity';
import { TokensController } from './tokens.controller';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  imports: [TypeOrmModule.forFeature([ApiToken]), ProjectsModule, UsersDataModule],
  controllers: [TokensController],
  providers: [TokensService, TokensRepository],
  exports: [TokensService],
})
export class TokensModule {}
