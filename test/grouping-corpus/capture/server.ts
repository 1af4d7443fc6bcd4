/**
 * A stand-in for the tracker's ingest endpoint that only records: it listens on 127.0.0.1, accepts
 * envelopes (`/api/<project>/envelope/`) and legacy store requests (`/api/<project>/store/`), gzip,
 * deflate or brotli encoded, and keeps the payload of every `event` item exactly as it arrived.
 * Used by capture.ts; see there for how the corpus is regenerated.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export interface CapturedEvent {
  /** The event item's payload, parsed, as the SDK sent it. */
  payload: Record<string, unknown>;
  /** `envelope` or `store`: how the SDK delivered it. */
  via: 'envelope' | 'store';
  /** The `User-Agent` or `X-Sentry-Auth` client the SDK named itself with. */
  client: string;
}

export class CaptureServer {
  readonly events: CapturedEvent[] = [];
  /** Requests that could not be read: a capture that produced them is suspect. */
  readonly problems: string[] = [];
  private readonly server: Server;
  private waiters: { count: number; resolve: () => void }[] = [];

  private constructor() {
    this.server = createServer((request, response) => this.handle(request, response));
  }

  static async start(): Promise<CaptureServer> {
    const capture = new CaptureServer();
    await new Promise<void>((resolve, reject) => {
      capture.server.once('error', reject);
      capture.server.listen(0, '127.0.0.1', () => resolve());
    });
    return capture;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A DSN for project `project` on this server. The key is a made-up public key. */
  dsn(project = 1): string {
    return `http://6f1e0c2a3b4d4e5f8a9b0c1d2e3f4a5b@127.0.0.1:${this.port}/${project}`;
  }

  /** Resolves once `count` events in all have arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs = 20_000): Promise<void> {
    if (this.events.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`expected ${count} events, got ${this.events.length}`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Removes and returns what arrived so far. */
  take(): CapturedEvent[] {
    return this.events.splice(0, this.events.length);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0];
      const via = /\/envelope\/?$/.test(path) ? 'envelope' : /\/store\/?$/.test(path) ? 'store' : null;
      response.setHeader('Content-Type', 'application/json');
      // The browser SDK posts from the page's origin, another port of 127.0.0.1.
      response.setHeader('Access-Control-Allow-Origin', '*');
      response.setHeader('Access-Control-Allow-Headers', '*');
      if (request.method === 'OPTIONS') {
        response.end();
        return;
      }
      if (request.method !== 'POST' || !via) {
        response.statusCode = 404;
        response.end('{}');
        return;
      }
      const client = String(request.headers['user-agent'] ?? request.headers['x-sentry-auth'] ?? '');
      try {
        const body = decode(Buffer.concat(chunks), String(request.headers['content-encoding'] ?? ''));
        const payloads = via === 'store' ? [JSON.parse(body.toString('utf8'))] : eventItems(body);
        for (const payload of payloads) this.events.push({ payload, via, client });
        this.notify();
        response.end(JSON.stringify({ id: payloads[0]?.event_id ?? null }));
      } catch (error) {
        this.problems.push(`${request.method} ${path}: ${(error as Error).message}`);
        response.statusCode = 400;
        response.end('{}');
      }
    });
  }

  private notify(): void {
    const ready = this.waiters.filter((waiter) => this.events.length >= waiter.count);
    this.waiters = this.waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve();
  }
}

function decode(body: Buffer, encoding: string): Buffer {
  const isGzip = body[0] === 0x1f && body[1] === 0x8b;
  if (encoding === 'gzip' || isGzip) return gunzipSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  if (encoding === 'br') return brotliDecompressSync(body);
  return body;
}

/** The payloads of the `event` items of an envelope (header line, then item header and payload pairs). */
function eventItems(body: Buffer): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  let position = body.indexOf(0x0a);
  if (position === -1) return events;
  position++;
  while (position < body.length) {
    let headerEnd = body.indexOf(0x0a, position);
    if (headerEnd === -1) headerEnd = body.length;
    const headerText = body.subarray(position, headerEnd).toString('utf8').trim();
    position = headerEnd + 1;
    if (headerText === '') continue;
    const header = JSON.parse(headerText) as { type?: string; length?: number };
    let payloadEnd: number;
    if (typeof header.length === 'number') payloadEnd = position + header.length;
    else {
      payloadEnd = body.indexOf(0x0a, position);
      if (payloadEnd === -1) payloadEnd = body.length;
    }
    const payload = body.subarray(position, payloadEnd);
    position = payloadEnd + 1;
    if (header.type === 'event') events.push(JSON.parse(payload.toString('utf8')));
  }
  return events;
}
