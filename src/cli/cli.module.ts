import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditLogModule } from '../audit/audit-log.module';
import { UsersModule } from '../users/users.module';
import { ConfigModule } from '../config/config.module';
import type { ResolvedConfig } from '../config/environment';
import { dataSourceOptions } from '../schema/data-source-options';
import { TokensModule } from '../tokens/tokens.module';
import { ErasureModule } from '../privacy/erasure/erasure.module';
import { StorageModule } from '../storage/storage.module';

/**
 * Just what the operator commands need: the database, the blob store, and the services that own
 * tokens, users and erasure.
 * No HTTP server, no Redis, no queue workers.
 */
@Module({})
export class CliModule {
  static forRoot(config: ResolvedConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.DATABASE_URL),
          extra: { max: 2 },
          retryAttempts: 0,
        }),
        TokensModule,
        UsersModule,
        AuditLogModule,
        StorageModule,
        ErasureModule,
      ],
    };
  }
}
