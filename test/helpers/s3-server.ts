import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { freePort } from '../../bench/support';

/**
 * An S3-compatible server for tests: the server mode of moto (`pip install 'moto[server]'`), on a
 * free loopback port, in memory. `.ci/run` installs it; where it cannot be found, S3_SERVER_MISSING
 * says why and the S3 tests are skipped with that message.
 */
const CANDIDATES: string[][] = [['moto_server'], ['python3', '-m', 'moto.server']];

let found: string[] | null | undefined;

/** The first way of starting moto's server that works here (pip's script, or Debian's module). */
function serverCommand(): string[] | null {
  if (found !== undefined) return found;
  found =
    CANDIDATES.find(([command, ...args]) => {
      const probe = spawnSync(command, [...args, '--help'], { stdio: 'ignore', timeout: 30_000 });
      return !probe.error && probe.status === 0;
    }) ?? null;
  return found;
}

export function s3ServerMissing(): string | undefined {
  if (serverCommand()) return undefined;
  return "S3 tests skipped: moto's server mode is not installed (neither moto_server nor python3 -m moto.server); pip install 'moto[server]'";
}

export class S3Server {
  private process?: ChildProcess;
  endpoint = '';
  readonly credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

  async start(port?: number): Promise<void> {
    const chosen = port ?? (await freePort());
    this.endpoint = `http://127.0.0.1:${chosen}`;
    const [command, ...args] = serverCommand() ?? ['moto_server'];
    this.process = spawn(command, [...args, '-H', '127.0.0.1', '-p', String(chosen)], { stdio: 'ignore' });
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const answer = await fetch(`${this.endpoint}/moto-api/`);
        if (answer.status < 500) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`moto's server did not start on ${this.endpoint}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  client(): S3Client {
    return new S3Client({
      endpoint: this.endpoint,
      region: 'us-east-1',
      credentials: this.credentials,
      forcePathStyle: true,
    });
  }

  async createBucket(name: string): Promise<void> {
    const client = this.client();
    await client.send(new CreateBucketCommand({ Bucket: name }));
    client.destroy();
  }

  /** The app's configuration for this server. */
  settings(bucket: string, prefix: string): Record<string, string> {
    return {
      BLOB_STORAGE: 's3',
      S3_ENDPOINT: this.endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: this.credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: this.credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: prefix,
    };
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}
