import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../bench/support';

const run = promisify(execFile);
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A throwaway Redis Cluster of `masters` masters without replicas, owned by the test: its own
 * `redis-server` processes on free loopback ports, nodes files in a temporary folder, nothing
 * persisted. Never the shared Redis on 6379. `stop` kills every process and removes the folder, and
 * is safe to call after a failed `start`.
 */
export class TestRedisCluster {
  readonly ports: number[] = [];
  private readonly children: ChildProcess[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  private output = '';

  /** A REDIS_URL listing every node (REDIS_CLUSTER=true). */
  get url(): string {
    return `redis://${this.ports.map((port) => `127.0.0.1:${port}`).join(',')}`;
  }

  async start(masters = 3): Promise<void> {
    // Should the test process die without running its afterAll, the nodes do not outlive it.
    process.once('exit', () => this.children.forEach((child) => child.kill('SIGKILL')));
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      this.ports.push(port);
      this.children.push(this.spawnNode(port));
    }
    for (const port of this.ports) await this.until(port, 'PING', (reply) => reply === 'PONG');
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...this.ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    for (const port of this.ports) {
      await this.until(port, 'CLUSTER INFO', (reply) => reply.includes('cluster_state:ok'));
    }
  }

  /** One command on one node, through redis-cli; the reply as redis-cli prints it. */
  async cli(port: number, ...args: string[]): Promise<string> {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
      timeout: 10_000,
    });
    return stdout.trim();
  }

  /** Kills the node on `port` (SIGKILL: as a crash, nothing said to its peers). */
  async kill(port: number): Promise<void> {
    const child = this.children[this.ports.indexOf(port)];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /**
   * Starts the node on `port` again, from its nodes file: it rejoins with its slots (empty: nothing
   * is persisted). Resolves once every node reports the cluster ok.
   */
  async restart(port: number): Promise<void> {
    await this.kill(port);
    this.children[this.ports.indexOf(port)] = this.spawnNode(port);
    for (const node of this.ports) {
      await this.until(node, 'CLUSTER INFO', (reply) => reply.includes('cluster_state:ok'));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.ports.map((port) => this.kill(port)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private spawnNode(port: number): ChildProcess {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(this.dir, `nodes-${port}.conf`),
        // A stopped master is noticed within seconds, not the default 15.
        '--cluster-node-timeout',
        '2000',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    return child;
  }

  private async until(port: number, command: string, done: (reply: string) => boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    let reply = '';
    for (;;) {
      const exited = this.children.find((child) => child.exitCode !== null);
      if (exited)
        throw new Error(`redis-server exited with ${exited.exitCode}: ${this.output.slice(-2_000)}`);
      reply = await this.cli(port, ...command.split(' ')).catch((error: Error) => error.message);
      if (done(reply)) return;
      if (Date.now() > deadline)
        throw new Error(`node ${port}: "${command}" still answers ${reply.slice(0, 300)}`);
      await pause(100);
    }
  }
}
