import { existsSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { prepareDatabase } from './schema/migrate';
import { createHttpApp } from './http-app';
import { AppLogger, createPino } from './logger';
import { validateEnvironment } from './config/environment';

const STARTUP_ATTEMPTS = 30;

async function prepareDatabaseWithRetry(databaseUrl: string, logger: Logger): Promise<void> {
  // PostgreSQL may still be starting (docker compose, a reboot): wait for it rather than crash-loop.
  for (let attempt = 1; ; attempt++) {
    try {
      const applied = await prepareDatabase(databaseUrl);
      for (const name of applied) logger.log(`applied migration ${name}`);
      return;
    } catch (error) {
      if (attempt >= STARTUP_ATTEMPTS) throw error;
      logger.warn(`database not ready (${(error as Error).message}), retrying in 2 s`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}

async function bootstrap(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config;
  try {
    config = validateEnvironment(process.env);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  Logger.overrideLogger(new AppLogger(createPino(config.logLevel)));
  const logger = new Logger('Bootstrap');
  await prepareDatabaseWithRetry(config.DATABASE_URL, logger);
  const { app } = await createHttpApp();
  await app.listen(config.PORT, config.HOST);
  logger.log(
    `listening on http://${config.HOST}:${config.PORT} (role ${config.APP_ROLE}, public URL ${config.publicUrl})`,
  );
}

bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
