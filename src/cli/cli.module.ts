import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigModule } from '../config/config.module';
import type { ResolvedConfig } from '../config/environment';
import { connectionOptions } from '../schema/connection-options';

/** What one operator command needs on top of the configuration and the database. */
export type CommandModules = Pick<ModuleMetadata, 'imports' | 'providers'>;

/**
 * The configuration, the database, and the modules of one command: each command starts only what it
 * uses, so that it is quick on a loaded machine too. No HTTP server, no Redis, no queue workers.
 */
@Module({})
export class CliModule {
  static forRoot(config: ResolvedConfig, command: CommandModules): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRoot({
          ...connectionOptions(config.DATABASE_URL),
          // Only the entities of the command's data modules are loaded.
          autoLoadEntities: true,
          extra: { max: 2 },
          retryAttempts: 0,
        }),
        ...(command.imports ?? []),
      ],
      providers: command.providers ?? [],
    };
  }
}
