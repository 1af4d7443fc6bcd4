import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { isEmail } from 'class-validator';
import { UsersService } from '../auth/users.service';
import { validateEnvironment } from '../config/environment';
import { prepareDatabase } from '../database/migrate';
import { TokensService } from '../tokens/tokens.service';
import { parseArgs, takeFlags, UsageError } from './args';
import { CliModule } from './cli.module';

/**
 * Operator commands: `npm run cli -- <command>` (or `node dist/cli/main.js <command>`).
 * Results go to stdout, everything else to stderr, so a script can capture a token with
 * `npm run cli -s -- token:create --description ci` or `| tail -n 1`.
 */
const HELP = `Usage: npm run cli -- <command> [options]

Commands:
  token:create --description <text>            Create an API token and print it (last line of output).
                                               It is shown once: store it now.
  user:create --email <email> --password <pw>  Create a dashboard user, or reset its password.
  help                                         Show this help.

Configuration comes from the environment (DATABASE_URL, ...; see .env.example).
The database is created and migrated when needed.`;

type Command = (app: INestApplicationContext, flags: Record<string, string>) => Promise<string>;

const COMMANDS: Record<
  string,
  { needsApp: boolean; check: (flags: Record<string, string>) => void; run: Command }
> = {
  'token:create': {
    needsApp: true,
    check: (flags) => {
      const { description } = takeFlags(flags, ['description']);
      if (description.length > 200) throw new UsageError('--description must be at most 200 characters');
    },
    run: async (app, flags) => {
      const token = await app.get(TokensService).create(flags.description);
      process.stderr.write(`Created API token ${token.id} (${token.description}). It is not shown again:\n`);
      return token.token;
    },
  },
  'user:create': {
    needsApp: true,
    check: (flags) => {
      const { email, password } = takeFlags(flags, ['email', 'password']);
      if (!isEmail(email.trim())) throw new UsageError('--email must be an e-mail address');
      if (password.length === 0) throw new UsageError('--password must not be empty');
    },
    run: async (app, flags) => {
      const user = await app.get(UsersService).createOrUpdate(flags.email, flags.password);
      return `user ${user.email} is ready (id ${user.id})`;
    },
  },
  help: {
    needsApp: false,
    check: (flags) => takeFlags(flags, []),
    run: () => Promise.resolve(HELP),
  },
};

async function main(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    return usageFailure((error as Error).message);
  }
  const name = parsed.command ?? 'help';
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return usageFailure(`unknown command "${name}"`);
  try {
    command.check(parsed.flags);
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(`${name}: ${error.message}`);
    throw error;
  }
  if (!command.needsApp) {
    process.stdout.write(`${await command.run(undefined as never, parsed.flags)}\n`);
    return 0;
  }

  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = validateEnvironment(process.env);
  const applied = await prepareDatabase(config.DATABASE_URL);
  for (const migration of applied) process.stderr.write(`applied migration ${migration}\n`);

  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), {
    logger: false,
    abortOnError: false,
  });
  try {
    const output = await command.run(app, parsed.flags);
    process.stdout.write(`${output}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

function usageFailure(message: string): number {
  process.stderr.write(`error: ${message}\nRun "npm run cli -- help" for usage.\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${(error as Error)?.message ?? String(error)}\n`);
    process.exit(1);
  },
);
