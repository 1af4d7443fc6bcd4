import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { GeneratedPosition, OriginalFrame } from './source-map-resolve';
import type { SourceMapReply, SourceMapRequest } from './source-map-worker';

/** A map that has not been parsed and looked up in this long is given up on (its frames stay as sent). */
const REQUEST_TIMEOUT_MS = 60_000;

export type ThreadAnswer = { frames: (OriginalFrame | null)[] } | { error: string };

/**
 * The digest's side of the source map thread (source-map-worker.ts): started on first use,
 * restarted after a crash, each request answered or failed (never left hanging).
 */
export class SourceMapThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (reply: SourceMapReply) => void; timer: NodeJS.Timeout; worker: Worker }
  >();

  constructor(private readonly cacheBytes: number) {}

  /** Looks positions up in a map; its bytes are loaded only if the thread does not have it parsed. */
  async resolve(
    fileId: string,
    positions: GeneratedPosition[],
    load: () => Promise<Uint8Array>,
  ): Promise<ThreadAnswer> {
    let reply = await this.request({ fileId, positions });
    if ('missing' in reply) {
      // A copy of its own: the bytes are moved to the thread, and a pooled buffer must not be.
      const bytes = new Uint8Array(await load());
      reply = await this.request({ fileId, positions, bytes }, [bytes.buffer]);
    }
    if ('missing' in reply) return { error: 'the source map thread lost the map' };
    return reply;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private request(
    request: Omit<SourceMapRequest, 'id'>,
    transfer: ArrayBuffer[] = [],
  ): Promise<SourceMapReply> {
    const id = this.nextId++;
    const worker = this.started();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ id, error: `the source map took longer than ${REQUEST_TIMEOUT_MS / 1000} s to read` });
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, timer, worker });
      worker.postMessage({ ...request, id } satisfies SourceMapRequest, transfer);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const compiled = join(__dirname, 'source-map-worker.js');
    // From the TypeScript sources (tests, ts-node) the thread compiles its file the same way.
    const file = existsSync(compiled) ? compiled : join(__dirname, 'source-map-worker.ts');
    const worker = new Worker(file, {
      workerData: { cacheBytes: this.cacheBytes },
      execArgv: file.endsWith('.ts') ? ['--require', 'ts-node/register/transpile-only'] : [],
    });
    worker.unref();
    worker.on('message', (reply: SourceMapReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      clearTimeout(waiting.timer);
      this.pending.delete(reply.id);
      waiting.resolve(reply);
    });
    const fail = (reason: string) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, waiting] of this.pending) {
        if (waiting.worker !== worker) continue;
        clearTimeout(waiting.timer);
        this.pending.delete(id);
        waiting.resolve({ id, error: reason });
      }
    };
    worker.on('error', (error) => fail(`the source map thread failed (${error.message})`));
    worker.on('exit', (code) => fail(`the source map thread stopped (exit code ${code})`));
    this.worker = worker;
    return worker;
  }
}
