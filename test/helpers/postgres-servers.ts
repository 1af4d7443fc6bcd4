/**
 * Database servers a test starts for itself, so that it may stop, break or reconfigure them: a
 * PostgreSQL cluster (initdb into a temporary folder) and a PgBouncer in front of it, on free loopback
 * ports, never the shared server on 5432. Both run as the `postgres` OS user when the tests run as
 * root: initdb, postgres and pgbouncer all refuse to run as root.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const PG_BIN = process.env.CHAOS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Debian installs it outside a non-root PATH. */
const PGBOUNCER_BIN = existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer';

const runsAsRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary as the `postgres` OS user when we are root (initdb refuses to run as root). */
async function runAsPostgres(binary: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const path = join(PG_BIN, binary);
  const [command, argv] = runsAsRoot() ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  const { stdout, stderr } = await execFileAsync(command, argv, { timeout: timeoutMs });
  return `${stdout}${stderr}`;
}

let postgresIds: { uid: number; gid: number } | undefined;
function postgresUser(): { uid: number; gid: number } {
  if (!postgresIds) {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('postgres:'));
    if (!line) throw new Error('no "postgres" OS user to run PostgreSQL as');
    const fields = line.split(':');
    postgresIds = { uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  return postgresIds;
}

/** The `postgres` OS user's ids when we run as root (the files PostgreSQL writes must be its own). */
export function postgresOwner(): { uid: number; gid: number } | undefined {
  return runsAsRoot() ? postgresUser() : undefined;
}

/** The URL of `database` on a server of this file listening on loopback `port` (user `postgres`). */
function loopbackUrl(port: number, database: string): string {
  return `postgres://postgres@127.0.0.1:${port}/${database}`;
}

export interface PostgresOptions {
  /** Where the cluster lives; `<baseDir>/data` by default. Its parent must exist. */
  dataDir?: string;
  /** A separate folder for the write-ahead log (initdb --waldir); inside the data folder by default. */
  walDir?: string;
  /** WAL segment size in MB (initdb --wal-segsize), 16 by default. */
  walSegmentMb?: number;
  /** Server settings passed as `-c name=value` at every start. */
  settings?: Record<string, string>;
}

/** A throwaway PostgreSQL cluster: trust auth, loopback only, its socket in the temporary folder. */
export class Postgres {
  readonly dataDir: string;
  readonly socketDir: string;
  readonly logFile: string;

  constructor(
    readonly baseDir: string,
    readonly port: number,
    private readonly options: PostgresOptions = {},
  ) {
    this.dataDir = options.dataDir ?? join(baseDir, 'data');
    this.socketDir = join(baseDir, 'socket');
    this.logFile = join(baseDir, 'postgres.log');
  }

  url(database: string): string {
    return loopbackUrl(this.port, database);
  }

  async init(): Promise<void> {
    mkdirSync(this.socketDir, { recursive: true });
    if (runsAsRoot()) {
      const { uid, gid } = postgresUser();
      for (const dir of [this.baseDir, this.socketDir]) chownSync(dir, uid, gid);
    }
    await runAsPostgres('initdb', [
      '-D',
      this.dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
      ...(this.options.walDir ? ['--waldir', this.options.walDir] : []),
      ...(this.options.walSegmentMb ? ['--wal-segsize', String(this.options.walSegmentMb)] : []),
    ]);
  }

  async start(): Promise<void> {
    const settings = Object.entries(this.options.settings ?? {}).map(
      ([name, value]) => ` -c ${name}=${value}`,
    );
    const options = `-p ${this.port} -k ${this.socketDir} -c listen_addresses=127.0.0.1 -c max_connections=200${settings.join('')}`;
    await runAsPostgres('pg_ctl', [
      'start',
      '-D',
      this.dataDir,
      '-l',
      this.logFile,
      '-w',
      '-t',
      '60',
      '-o',
      options,
    ]);
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await runAsPostgres('pg_ctl', ['stop', '-D', this.dataDir, '-m', mode, '-w', '-t', '60']);
  }

  async running(): Promise<boolean> {
    try {
      await runAsPostgres('pg_ctl', ['status', '-D', this.dataDir]);
      return true;
    } catch {
      return false;
    }
  }
}

export interface PgBouncerOptions {
  /** Databases it routes; every database (a `*` entry) when absent. */
  databases?: string[];
  /** Server connections per database: small, so that many clients really share few connections. */
  poolSize: number;
}

/**
 * PgBouncer in transaction pooling mode in front of `server`, in the foreground, its log in its
 * folder. `auth_type = any` (connect as any user, log in to PostgreSQL as `postgres`): the cluster
 * trusts loopback anyway, and no password file is needed. No `ignore_startup_parameters`: a client
 * that sends a startup parameter PgBouncer does not know is refused, as it would be in production.
 */
export class PgBouncer {
  readonly configFile: string;
  readonly logFile: string;
  private child: ChildProcess | undefined;

  constructor(
    readonly baseDir: string,
    readonly port: number,
    private readonly server: Pick<Postgres, 'port'>,
    private readonly options: PgBouncerOptions,
  ) {
    this.configFile = join(baseDir, 'pgbouncer.ini');
    this.logFile = join(baseDir, 'pgbouncer.log');
  }

  url(database: string): string {
    return loopbackUrl(this.port, database);
  }

  async start(): Promise<void> {
    mkdirSync(this.baseDir, { recursive: true });
    const target = `host=127.0.0.1 port=${this.server.port} user=postgres`;
    const databases = (this.options.databases ?? ['*']).map((name) => `${name} = ${target}`);
    writeFileSync(
      this.configFile,
      [
        '[databases]',
        ...databases,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${this.port}`,
        'unix_socket_dir =',
        'auth_type = any',
        'pool_mode = transaction',
        `default_pool_size = ${this.options.poolSize}`,
        'max_client_conn = 200',
        // After a failed server login (a database that does not exist yet) PgBouncer waits this
        // long before it connects to that database again; the default 15 s would only slow tests.
        'server_login_retry = 1',
        '',
      ].join('\n'),
    );
    const log = openSync(this.logFile, 'a');
    const child = spawn(PGBOUNCER_BIN, [this.configFile], {
      stdio: ['ignore', log, log],
      ...(runsAsRoot() ? postgresUser() : {}),
    });
    closeSync(log);
    this.child = child;
    let failure: Error | undefined;
    child.once('error', (error) => (failure = error));
    const deadline = Date.now() + 10_000;
    while (!(await accepts(this.port))) {
      if (failure) throw new Error(`pgbouncer could not be started (${PGBOUNCER_BIN}): ${failure.message}`);
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `pgbouncer exited (${child.exitCode ?? child.signalCode}): ${readFileSync(this.logFile, 'utf8')}`,
        );
      }
      if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${this.port} within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM is PgBouncer's immediate shutdown; SIGKILL if it is still there after 5 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
