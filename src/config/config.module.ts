import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import type { ResolvedConfig } from './environment';

/**
 * Shares the configuration validated at boot as `AppConfig`. It is validated by the caller (see
 * `validateEnvironment`) so that several differently configured applications can live in one process
 * (tests, the CLI) without touching process.env.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: ResolvedConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig],
    };
  }
}
