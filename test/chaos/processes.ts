/**
 * The processes the chaos suite runs and breaks, besides its PostgreSQL cluster (`Postgres`, in
 * test/helpers/postgres-servers.ts): a Redis server of its own (a temporary folder, a free loopback
 * port, never the shared 6379), and the service's `api` and `worker` roles as separate
 * `node dist/main.js` processes. The suite registers everything it starts with `Cleanup`
 * (test/helpers/cleanup.ts), which stops it at the end, on failure and on SIGINT/SIGTERM.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { configurationVariables } from '../helpers/config-variables';

const execFileAsync = promisify(execFile);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Last `lines` lines of a text file ('' when it does not exist). */
export function tail(path: string, lines = 40): string {
  if (!existsSync(path)) return '';
  const text = readFileSync(path, 'utf8').trimEnd();
  return text.split('\n').slice(-lines).join('\n');
}

/** Waits for a child process to exit, at most `timeoutMs`; true when it did. */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** redis-server in the foreground, as docker-compose.yml runs it (AOF, fsync every second, no RDB). */
export class RedisServer {
  private child: ChildProcess | undefined;

  constructor(
    readonly dir: string,
    readonly port: number,
    readonly logFile: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const log = openSync(this.logFile, 'a');
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
    ];
    args.push('--dir', this.dir, '--save', '', '--maxmemory-policy', 'noeviction');
    this.child = spawn('redis-server', args, { stdio: ['ignore', log, log] });
    closeSync(log);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`redis-server exited with ${this.child.exitCode}`);
      try {
        const { stdout } = await this.cli(['PING']);
        if (stdout.trim() === 'PONG') return;
      } catch {
        // not up yet, or still loading the AOF
      }
      if (Date.now() > deadline) throw new Error('redis-server did not answer PING within 30 s');
      await sleep(100);
    }
  }

  cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
    return execFileAsync('redis-cli', ['-h', '127.0.0.1', '-p', String(this.port), ...args], {
      timeout: 10_000,
    });
  }

  /** Graceful: SHUTDOWN (the AOF is flushed and fsynced), falling back to SIGTERM, then SIGKILL. */
  async shutdown(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await this.cli(['SHUTDOWN']).catch(() => undefined); // the connection drops when it works
    if (await waitForExit(child, 15_000)) return;
    child.kill('SIGTERM');
    if (await waitForExit(child, 15_000)) return;
    child.kill('SIGKILL');
    await waitForExit(child, 5_000);
  }
}

export type AppRole = 'api' | 'worker';

/**
 * The caller's environment without the service's configuration variables (every one it reads:
 * none may leak in from the caller's shell), then `settings`.
 */
export function serviceEnvironment(settings: Record<string, string>): Record<string, string> {
  const serviceVariables = new Set(configurationVariables());
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !serviceVariables.has(key)) env[key] = value;
  }
  return { ...env, ...settings };
}

/**
 * One `node dist/main.js` process of a role, restarted on the same port, its output appended to a log
 * file. Like a container orchestrator, it restarts a process that dies without being told to (and
 * records that: it is a finding).
 */
export class AppProcess {
  private child: ChildProcess | undefined;
  private expectingExit = false;
  supervise = true;
  starts = 0;
  readonly unexpectedExits: string[] = [];
  readonly logFile: string;

  constructor(
    readonly role: AppRole,
    readonly root: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    logDir: string,
  ) {
    this.logFile = join(logDir, `${role}.log`);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process and waits until `/health` answers (the database is created and migrated first). */
  async start(timeoutMs = 90_000): Promise<void> {
    this.starts++;
    this.expectingExit = false;
    const log = openSync(this.logFile, 'a');
    writeSync(
      log,
      `\n===== chaos: ${this.role} start #${this.starts} at ${new Date().toISOString()} =====\n`,
    );
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: this.root,
      stdio: ['ignore', log, log],
      env: { ...this.env, APP_ROLE: this.role, PORT: String(this.port), HOST: '127.0.0.1' },
    });
    closeSync(log);
    this.child = child;
    child.once('exit', (code, signal) => {
      if (this.expectingExit || this.child !== child) return;
      const what = `${this.role} (pid ${child.pid}) exited unexpectedly (${code ?? signal}) at ${new Date().toISOString()}`;
      this.unexpectedExits.push(what);
      console.log(`  !! ${what}${this.supervise ? '; restarting it' : ''}`);
      if (this.supervise && this.unexpectedExits.length <= 5) {
        setTimeout(() => {
          if (this.supervise && !this.alive) {
            this.start().catch((error: unknown) =>
              console.log(`  !! restart of ${this.role} failed: ${(error as Error).message}`),
            );
          }
        }, 1_000);
      }
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${this.role} exited during start (${child.exitCode ?? child.signalCode})`);
      }
      try {
        const response = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`${this.role} did not answer /health within ${timeoutMs / 1000} s`);
      await sleep(200);
    }
  }

  signal(signal: NodeJS.Signals): void {
    if (this.alive) this.child!.kill(signal);
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    this.expectingExit = true;
    child.kill('SIGKILL');
    await waitForExit(child, 10_000);
  }

  /** Graceful stop (SIGTERM, Nest's shutdown hooks), SIGKILL after 15 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    this.expectingExit = true;
    child.kill('SIGCONT'); // in case it was paused
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 15_000))) await this.kill();
  }
}
