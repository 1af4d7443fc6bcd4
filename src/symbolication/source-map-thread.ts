import { LRUCache } from 'lru-cache';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { GeneratedPosition, OriginalFrame } from './source-map-resolve';
import type { SourceMapReply, SourceMapRequest } from './source-map-worker';

/** A map that has not been parsed and looked up in this long is given up on (its frames stay as sent). */
const REQUEST_TIMEOUT_MS = 60_000;
const GIVEN_UP_TTL_MS = 10 * 60_000;

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
    {
      resolve: (reply: SourceMapReply) => void;
      timer: NodeJS.Timeout;
      worker: Worker;
      /** The map whose bytes this request carries. */
      loading: string | undefined;
    }
  >();

  /** Maps that stopped the thread or outran the timeout: answered with an error for a while. */
  private readonly givenUp = new LRUCache<string, string>({ max: 1_000, ttl: GIVEN_UP_TTL_MS });
  /** Maps whose bytes are on their way to the thread: later askers wait for them. */
  private readonly loading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly cacheBytes: number,
    /** Heap beyond the cache for the map being parsed; a map that needs more ends the thread. */
    private readonly options: { parseHeadroomMb: number } = { parseHeadroomMb: 256 },
  ) {}

  /**
   * Looks positions up in a map; its bytes are loaded only if the thread does not have it parsed,
   * and once for all the events that ask for it at the same time.
   */
  async resolve(
    fileId: string,
    positions: GeneratedPosition[],
    load: () => Promise<Uint8Array>,
  ): Promise<ThreadAnswer> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const reason = this.givenUp.get(fileId);
      if (reason) return { error: `the source map was given up on: ${reason}` };
      const loading = this.loading.get(fileId);
      if (loading) {
        await loading;
        const reply = await this.request({ fileId, positions });
        if (!('missing' in reply)) return answerOf(reply);
        continue;
      }
      const reply = await this.request({ fileId, positions });
      if (!('missing' in reply)) return answerOf(reply);
      if (this.loading.has(fileId)) continue;
      let answer: SourceMapReply | undefined;
      const sent = (async () => {
        // A copy of its own: the bytes are moved to the thread, and a pooled buffer must not be.
        const bytes = new Uint8Array(await load());
        answer = await this.request({ fileId, positions, bytes }, [bytes.buffer]);
      })().finally(() => this.loading.delete(fileId));
      this.loading.set(
        fileId,
        sent.catch(() => undefined),
      );
      await sent;
      if (answer && !('missing' in answer)) return answerOf(answer);
    }
    return { error: 'the source map thread lost the map' };
  }

  /** Ends a thread and answers what it still holds with `reason`; the next request starts a new one. */
  private stop(worker: Worker, reason: string): void {
    if (this.worker === worker) this.worker = undefined;
    for (const [id, waiting] of this.pending) {
      if (waiting.worker !== worker) continue;
      clearTimeout(waiting.timer);
      this.pending.delete(id);
      if (waiting.loading) {
        // A map being read when the thread died may be what killed it: not tried again for a while.
        this.givenUp.set(waiting.loading, 'the thread ended while reading it');
        waiting.resolve({ id, error: reason });
      } else {
        // A lookup queued behind it is asked again of the next thread (which loads its map again):
        // answering it with the error would leave its event unsymbolicated, and grouped apart.
        waiting.resolve({ id, missing: true });
      }
    }
    void worker.terminate().catch(() => undefined);
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
        // The thread is stuck on this map: it is given up on (so the next request gets a new thread),
        // with every request it still holds, and the map is not tried again for a while.
        if (request.bytes) this.givenUp.set(request.fileId, 'it took too long to read');
        this.stop(worker, `the source map took longer than ${REQUEST_TIMEOUT_MS / 1000} s to read`);
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, timer, worker, loading: request.bytes ? request.fileId : undefined });
      worker.postMessage({ ...request, id } satisfies SourceMapRequest, transfer);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const compiled = join(__dirname, 'source-map-worker.js');
    // From the TypeScript sources (tests, ts-node) the thread compiles its file the same way.
    const file = existsSync(compiled) ? compiled : join(__dirname, 'source-map-worker.ts');
    const cacheMb = Math.ceil(this.cacheBytes / 1024 / 1024);
    const worker = new Worker(file, {
      workerData: { cacheBytes: this.cacheBytes },
      // Its heap holds the cache (reckoned generously, see the worker) and one map being parsed: a
      // bounded heap makes V8 collect early instead of growing the process, and a map too big for
      // it ends the thread (its frames stay as sent) rather than the process.
      resourceLimits: {
        maxOldGenerationSizeMb: cacheMb + this.options.parseHeadroomMb,
        maxYoungGenerationSizeMb: 16,
      },
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
    worker.on('error', (error) => this.stop(worker, `the source map thread failed (${error.message})`));
    worker.on('exit', (code) => this.stop(worker, `the source map thread stopped (exit code ${code})`));
    this.worker = worker;
    return worker;
  }
}

function answerOf(reply: Exclude<SourceMapReply, { missing: true }>): ThreadAnswer {
  return 'error' in reply ? { error: reply.error } : { frames: reply.frames };
}
