import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AuditActor } from '../audit/audit-log.service';
import { CliModule, CommandModules } from './cli.module';
import { loadConfig, migrate } from './load-config';

/** What the audit log says did what an operator command did. */
export const CLI_ACTOR: AuditActor = { userId: null, tokenId: null, actor: 'command line', ip: null };

/**
 * Runs `run` in an application context holding only `modules` (on top of the configuration and the
 * database, migrated first), and closes it after.
 */
export async function withCommandContext<T>(
  modules: CommandModules,
  run: (app: INestApplicationContext) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  await migrate(config);
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config, modules), {
    logger: false,
    abortOnError: false,
  });
  try {
    return await run(app);
  } finally {
    await app.close();
  }
}
