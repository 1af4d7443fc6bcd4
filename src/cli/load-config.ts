import { existsSync } from 'node:fs';
import { ResolvedConfig, validateEnvironment } from '../config/environment';

/** The configuration, from the environment and `.env` when there is one. */
export function loadConfig(): ResolvedConfig {
  if (existsSync('.env')) process.loadEnvFile('.env');
  return validateEnvironment(process.env);
}

/**
 * Creates the database if missing and applies pending migrations, each named on stderr. The
 * migrations are loaded here, not by commands that only need Redis.
 */
export async function migrate(config: ResolvedConfig): Promise<string[]> {
  const { prepareDatabase } = await import('../schema/migrate');
  const applied = await prepareDatabase(config.DATABASE_URL);
  for (const migration of applied) process.stderr.write(`applied migration ${migration}\n`);
  return applied;
}
