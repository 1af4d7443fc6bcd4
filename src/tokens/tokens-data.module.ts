import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiToken } from './api-token.entity';
import { TokensRepository } from './tokens.repository';

/** The API tokens' rows, without routes (the command line creates tokens with this alone). */
@Module({
  imports: [TypeOrmModule.forFeature([ApiToken])],
  providers: [TokensRepository],
  exports: [TokensRepository],
})
export class TokensDataModule {}
