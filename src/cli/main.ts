import 'reflect-metadata';
import { isEmail } from 'class-validator';
import { QueueName } from '../common/queues';
import type { FailedJobs } from '../jobs/failed-jobs';
import { parseArgs, takeFlags, UsageError } from './args';
import { isRole, ROLES } from '../access/roles';
import { parsePersonIdentifier } from '../privacy/erasure/person-identifier';
import { InvalidInputError } from '../common/domain-errors';

/**
 * Operator commands: `npm run cli -- <command>` (or `node dist/cli/main.js <command>`).
 * Results go to stdout, everything else to stderr, so a script can capture a token with
 * `npm run cli -s -- token:create --description ci` or `| tail -n 1`.
 */
const HELP = `Usage: npm run cli -- <command> [options]

Commands:
  token:create --description <text>            Create an API token and print it (last line of output).
                                               It is shown once: store it now.
  user:create --email <email> --password <pw> [--role owner|admin|member|viewer]
                                               Create a dashboard user (an owner unless --role
                                               says otherwise), or reset its password and role.
  users:erase --project <id> --identifier <id:…|email:…|username:…|ip:…|value>
                                               Erase a person's data from a project: their events,
                                               attachments and feedback; prints what was removed
                                               (JSON). A bare value matches any of the four fields.
  migrate                                      Create the database if missing, run the pending
                                               migrations, and exit (a deployment's migration step).
  jobs:failed [--queue digest|alerts] [--limit <n>]
                                               List jobs that failed for good (newest first), as JSON
                                               lines: queue, id, failed_at, attempts, reason, subject.
  jobs:retry [--queue digest|alerts] [--id <job id>]
                                               Put failed jobs (all, or one) back in their queue with
                                               their attempts reset, e.g. after fixing their cause.
  jobs:purge [--queue digest|alerts]           Delete failed jobs for good.
  help                                         Show this help.

Configuration comes from the environment (DATABASE_URL, REDIS_URL, REDIS_PREFIX ...; see
.env.example). The database is created and migrated when needed; jobs:* only need Redis.`;

/**
 * A command checks its flags before anything is loaded, then loads only the modules it runs with
 * (`import()` in `run`): help and usage errors answer at once, and user:create does not start the
 * queues, Redis or the rest of the application.
 */
type Command = (flags: Record<string, string>) => Promise<string>;
type JobsCommand = (jobs: FailedJobs, flags: Record<string, string>) => Promise<string>;

function queueFlag(flags: Record<string, string>): QueueName | undefined {
  if (flags.queue === undefined) return undefined;
  const queue = Object.values(QueueName).find((name) => name === flags.queue);
  if (!queue) throw new UsageError(`--queue must be one of ${Object.values(QueueName).join(', ')}`);
  return queue;
}

const JOBS_COMMANDS: Record<string, { check: (flags: Record<string, string>) => void; run: JobsCommand }> = {
  'jobs:failed': {
    check: (flags) => {
      takeFlags(flags, [], ['queue', 'limit']);
      queueFlag(flags);
      if (flags.limit !== undefined && !/^[1-9]\d{0,5}$/.test(flags.limit)) {
        throw new UsageError('--limit must be a positive integer');
      }
    },
    run: async (jobs, flags) => {
      const list = await jobs.list(queueFlag(flags), Number(flags.limit ?? 100));
      const counts = await jobs.counts();
      process.stderr.write(
        `failed jobs: ${Object.entries(counts)
          .map(([queue, count]) => `${queue} ${count}`)
          .join(', ')}\n`,
      );
      return list.map((job) => JSON.stringify(job)).join('\n');
    },
  },
  'jobs:retry': {
    check: (flags) => {
      takeFlags(flags, [], ['queue', 'id']);
      queueFlag(flags);
    },
    run: async (jobs, flags) => {
      const retried = await jobs.retry(queueFlag(flags), flags.id === undefined ? [] : [flags.id]);
      return `retried ${retried} failed job(s)`;
    },
  },
  'jobs:purge': {
    check: (flags) => {
      takeFlags(flags, [], ['queue']);
      queueFlag(flags);
    },
    run: async (jobs, flags) => `purged ${await jobs.purge(queueFlag(flags))} failed job(s)`,
  },
};

const COMMANDS: Record<string, { check: (flags: Record<string, string>) => void; run: Command }> = {
  'token:create': {
    check: (flags) => {
      const { description } = takeFlags(flags, ['description']);
      if (description.length > 200) throw new UsageError('--description must be at most 200 characters');
    },
    run: async (flags) => (await import('./account-commands')).createToken(flags),
  },
  'user:create': {
    check: (flags) => {
      const { email, password } = takeFlags(flags, ['email', 'password'], ['role']);
      const role = flags.role;
      if (!isEmail(email.trim())) throw new UsageError('--email must be an e-mail address');
      if (password.length === 0) throw new UsageError('--password must not be empty');
      if (role !== undefined && !isRole(role))
        throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
    },
    run: async (flags) => (await import('./account-commands')).createUser(flags),
  },
  'users:erase': {
    check: (flags) => {
      const { project, identifier } = takeFlags(flags, ['project', 'identifier']);
      if (!/^[1-9]\d{0,9}$/.test(project)) throw new UsageError('--project must be a project id');
      try {
        parsePersonIdentifier(identifier);
      } catch (error) {
        if (error instanceof InvalidInputError) throw new UsageError(`--identifier: ${error.message}`);
        throw error;
      }
    },
    run: async (flags) => (await import('./erasure-command')).erasePerson(flags),
  },
  // Only what `npm start` does before listening, under the same lock: a deployment's migration step.
  migrate: {
    check: (flags) => takeFlags(flags, []),
    run: async () => {
      const { loadConfig, migrate } = await import('./load-config');
      const applied = await migrate(loadConfig());
      return applied.length === 0 ? 'no pending migrations' : `applied ${applied.length} migration(s)`;
    },
  },
  help: {
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
  if (Object.hasOwn(JOBS_COMMANDS, name)) return runJobsCommand(name, parsed.flags);
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return usageFailure(`unknown command "${name}"`);
  try {
    command.check(parsed.flags);
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(`${name}: ${error.message}`);
    throw error;
  }
  process.stdout.write(`${await command.run(parsed.flags)}\n`);
  return 0;
}

async function runJobsCommand(name: string, flags: Record<string, string>): Promise<number> {
  const command = JOBS_COMMANDS[name];
  try {
    command.check(flags);
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(`${name}: ${error.message}`);
    throw error;
  }
  const [{ FailedJobs }, { loadConfig }] = await Promise.all([
    import('../jobs/failed-jobs'),
    import('./load-config'),
  ]);
  const jobs = new FailedJobs(loadConfig());
  try {
    const output = await command.run(jobs, flags);
    if (output !== '') process.stdout.write(`${output}\n`);
    return 0;
  } finally {
    await jobs.close();
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
