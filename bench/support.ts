/** What both benchmarks need: paths, service URLs, child processes, memory readings, a bench database. */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { AddressInfo, createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import type Redis from 'ioredis';
import { Client } from 'pg';
import { randomHex, sha256Hex } from '../src/common/crypto';

export const ROOT = join(__dirname, '..');
export const EXCEPTION_FIXTURE = [
  join(ROOT, 'test/fixtures/exception-event.envelope'),
  join(ROOT, '../shared/fixtures/sentry-javascript-node-10.78.0/exception-event.envelope'),
].find((path) => existsSync(path))!;
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const PG_ADMIN_URL =
  process.env.BENCH_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A memory figure of a process in MB: VmHWM is the peak resident set, VmRSS the current one. */
export function procStatus(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Kernel clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat's CPU times: 100 on Linux. */
const CLOCK_TICKS_PER_S = 100;

/** CPU time (user + system) a process has used so far, in ms; NaN when it cannot be read. */
export function processCpuMs(pid: number): number {
  try {
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/**
 * CPU time used so far by the PostgreSQL backends serving `database` (other than the caller's own
 * connection), per backend pid: the server's side of a run, which throughput alone does not show
 * when the client, the server and Redis share the machine's cores. Needs the server on this host.
 */
export async function backendCpuMs(pg: Client, database: string): Promise<Map<number, number>> {
  const { rows } = await pg.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [database],
  );
  return new Map(rows.map((row) => [row.pid, processCpuMs(row.pid)]));
}

/** CPU ms the backends used between two `backendCpuMs` readings (backends started meanwhile count from 0). */
export function backendCpuSpentMs(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) if (Number.isFinite(ms)) total += ms - (before.get(pid) ?? 0);
  return total;
}

/**
 * Counts the digest recorded that a fold has still to add to the rollups (see RollupFolder): rows set
 * aside as unfoldable (`failed_at`) are not waiting for one. 0 on a schema from before the fold, so
 * that the benchmarks also run against earlier versions.
 */
export async function pendingRollups(pg: Client): Promise<number> {
  try {
    const { rows } = await pg.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM rollup_pending WHERE failed_at IS NULL',
    );
    return rows[0].n;
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return 0;
    throw error;
  }
}

export async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** A bench database (emptied first when `fresh`), migrated like production. Returns its URL. */
export async function benchDatabase(name: string, options: { fresh: boolean }): Promise<string> {
  if (options.fresh) {
    const admin = new Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  // Loaded late: the load-generator child process of bench:ingest never needs TypeORM.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { prepareDatabase } = require('../src/schema/migrate') as typeof import('../src/schema/migrate');
  await prepareDatabase(url.toString());
  return url.toString();
}

/** The parts of the exception fixture's event that the load generators vary. */
export type FixtureEvent = {
  event_id?: string;
  timestamp?: number | string;
  exception: {
    values: {
      type: string;
      value: string;
      stacktrace: { frames: { function?: string; in_app?: boolean }[] };
    }[];
  };
};

let fixtureEvent: FixtureEvent | undefined;

/**
 * The exception fixture's event made into group `group` of a family of issues: its own exception
 * type (`<Family>Error<group>`) and crashing in-app function, so that each group is an issue.
 */
export function fixtureEventOfGroup(family: string, group: number): FixtureEvent {
  fixtureEvent ??= JSON.parse(readFileSync(EXCEPTION_FIXTURE, 'utf8').split('\n')[2]) as FixtureEvent;
  const event = structuredClone(fixtureEvent);
  const exception = event.exception.values[0];
  exception.type = `${family}Error${group}`;
  exception.value = `${family.toLowerCase()} failure in group ${group}`;
  const frames = exception.stacktrace.frames;
  const crashing = frames[frames.length - 1];
  if (crashing.in_app !== true) throw new Error('fixture: the innermost frame is expected to be in-app');
  crashing.function = `${family.toLowerCase()}Handler${group}`;
  return event;
}

/** The value at percentile `p` (0–100, nearest rank) of ascending `sorted`. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Resolves once `url` answers 2xx (the server is up); fails after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The built server (`node dist/main.js`) in one role, against a bench database and Redis prefix. */
export function startApp(
  role: 'api' | 'worker',
  options: { port: number; databaseUrl: string; redisPrefix: string; env?: Record<string, string> },
): ChildProcess {
  return spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      APP_ROLE: role,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl,
      REDIS_URL,
      REDIS_PREFIX: options.redisPrefix,
      LOG_LEVEL: 'warn',
      SERVE_DASHBOARD: 'false',
      ...options.env,
    },
  });
}

/** An API token, stored as `token:create` stores it (its sha-256); returns the bearer token. */
export async function createApiToken(pg: Client, description: string): Promise<string> {
  const token = randomHex(20);
  await pg.query('INSERT INTO api_tokens (description, token_hash, prefix) VALUES ($1, $2, $3)', [
    description,
    sha256Hex(token),
    token.slice(0, 8),
  ]);
  return token;
}
