import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { ProjectsModule } from '../projects/projects.module';
import { TokensController } from './tokens.controller';
import { TokensDataModule } from './tokens-data.module';
import { TokensService } from './tokens.service';

@Module({
  imports: [TokensDataModule, ProjectsModule, UsersModule],
  controllers: [TokensController],
  providers: [TokensService],
  exports: [TokensService],
})
export class TokensModule {}
