/**
 * Load for the chaos suite: envelopes built from the @sentry/node exception fixture (a distinct
 * event id each, the exception type, message and crashing function varied over a few dozen groups),
 * sent at a steady rate over a few keep-alive connections, each request recorded with the phase it
 * was sent in and its outcome (HTTP status, or the connection error's code). Only a 200 whose body
 * names the event's id counts as acknowledged.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { fixtureEventOfGroup } from '../../bench/support';
import { sleep } from './processes';

export interface RequestRecord {
  /** Dashed lowercase UUID, as stored in `events.id`. */
  id: string;
  phase: string;
  /** '200', '503', …, a connection error code (ECONNREFUSED, ECONNRESET, TIMEOUT), or '200-badbody'. */
  outcome: string;
}

export const ACK = '200';
const REQUEST_TIMEOUT_MS = 10_000;

/** One envelope per call: group `index % groups`, the given event id (32 hex), timestamp now. */
export function envelopeFactory(fixture: string, groups: number): (index: number, hexId: string) => Buffer {
  const [headerLine, itemHeaderLine] = readFileSync(fixture, 'utf8').split('\n');
  const header = JSON.parse(headerLine) as Record<string, unknown>;
  // Split templates: only the id and the timestamps change per request.
  const templates = Array.from({ length: groups }, (_, group) => {
    const event = fixtureEventOfGroup('Chaos', group);
    event.event_id = '@@ID@@';
    event.timestamp = '@@TS@@';
    const text = [
      JSON.stringify({ ...header, event_id: '@@ID@@', sent_at: '@@SENT@@' }),
      itemHeaderLine,
      JSON.stringify(event),
      '',
    ].join('\n');
    return text.replace('"@@TS@@"', '@@TS@@');
  });
  return (index, hexId) => {
    const now = Date.now();
    return Buffer.from(
      templates[index % groups]
        .replaceAll('@@ID@@', hexId)
        .replace('@@SENT@@', new Date(now).toISOString())
        .replace('@@TS@@', String(now / 1000)),
    );
  };
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  fixture: string;
  groups: number;
  /** Envelopes per second, spread over `connections` lanes. */
  rate: number;
  connections: number;
}

/** Steady open-ish load: each lane sends on its own schedule, one request at a time, missed slots skipped. */
export class LoadGenerator {
  readonly records: RequestRecord[] = [];
  phase = 'setup';
  private running = false;
  private lanes: Promise<void>[] = [];
  private counter = 0;
  private readonly next: (index: number, hexId: string) => Buffer;
  private readonly agent: Agent;
  private readonly url: URL;

  constructor(private readonly options: LoadOptions) {
    this.next = envelopeFactory(options.fixture, options.groups);
    this.agent = new Agent({ keepAlive: true, maxSockets: options.connections + 32 });
    this.url = new URL(options.url);
  }

  start(): void {
    this.running = true;
    const interval = (1000 * this.options.connections) / this.options.rate;
    this.lanes = Array.from({ length: this.options.connections }, (_, lane) =>
      this.lane(interval, (lane * interval) / this.options.connections),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.lanes);
  }

  destroy(): void {
    this.running = false;
    this.agent.destroy();
  }

  /** Sends `count` envelopes as fast as `concurrency` connections allow (on top of the steady load). */
  async burst(count: number, concurrency: number): Promise<void> {
    let remaining = count;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (remaining > 0) {
          remaining--;
          await this.send();
        }
      }),
    );
  }

  /** Outcome counts of the requests of one phase. */
  outcomes(phase: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const record of this.records) {
      if (record.phase === phase) counts.set(record.outcome, (counts.get(record.outcome) ?? 0) + 1);
    }
    return counts;
  }

  private async lane(interval: number, offset: number): Promise<void> {
    let due = performance.now() + offset;
    while (this.running) {
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (!this.running) return;
      await this.send();
      due = Math.max(due + interval, performance.now());
    }
  }

  private send(): Promise<void> {
    const id = randomUUID();
    const hexId = id.replace(/-/g, '');
    const body = this.next(this.counter++, hexId);
    const record: RequestRecord = { id, phase: this.phase, outcome: 'PENDING' };
    this.records.push(record);
    return new Promise<void>((resolve) => {
      const request = httpRequest(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname + this.url.search,
          method: 'POST',
          headers: { ...this.options.headers, 'Content-Length': String(body.length) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let ended = false;
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', () => undefined);
          // A response that breaks off after its status line is no acknowledgement.
          response.on('close', () => {
            if (!ended) record.outcome = 'RESPONSE_ABORTED';
            resolve();
          });
          response.on('end', () => {
            ended = true;
            const status = String(response.statusCode ?? 0);
            record.outcome = status;
            if (status === ACK) {
              try {
                const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown };
                if (answer.id !== hexId) record.outcome = '200-badbody';
              } catch {
                record.outcome = '200-badbody';
              }
            }
            resolve();
          });
        },
      );
      request.setTimeout(REQUEST_TIMEOUT_MS, () =>
        request.destroy(Object.assign(new Error('request timed out'), { code: 'TIMEOUT' })),
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (record.outcome === 'PENDING') record.outcome = error.code ?? 'ERROR';
        resolve();
      });
      request.end(body);
    });
  }
}

/** `200×812 503×340 ECONNREFUSED×12`, most frequent first. */
export function formatOutcomes(counts: Map<string, number>): string {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([outcome, count]) => `${outcome}×${count}`)
    .join(' ');
}
