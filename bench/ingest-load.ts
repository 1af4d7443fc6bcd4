/**
 * The ingest benchmarks' load generator, run as a child process of its own so that it never shares
 * a CPU's event loop with what it measures: `load(options)` starts it and returns its figures.
 * Keep-alive connections send the @sentry/node 10 exception fixture (or another envelope) with a
 * fresh event_id per request, in a closed loop (each connection sends again once answered) or an
 * open one (a fixed schedule, latency measured from each request's scheduled send time).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { EXCEPTION_FIXTURE, ROOT } from './support';

const FIXTURE = EXCEPTION_FIXTURE;


export interface LoadOptions {
  url: string;
  mode: 'closed' | 'open';
  connections: number;
  durationS: number;
  rate?: number;
  headers: Record<string, string>;
  warmupS: number;
  /** Another envelope to send than the exception fixture (its event id is varied the same way). */
  fixture?: string;
}

export interface LoadResult {
  mode: 'closed' | 'open';
  durationS: number;
  requests: number;
  /** Answered during the warm-up, not in the figures. */
  warmupRequests: number;
  ok: number;
  errors: number;
  statuses: Record<string, number>;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
}

/** The fixture split around its event id, so each request gets a new id without re-encoding. */
function envelopeFactory(fixture = FIXTURE): () => Buffer {
  const text = readFileSync(fixture, 'utf8');
  const original = JSON.parse(text.split('\n')[0]).event_id as string;
  const at = text.indexOf(original);
  const before = Buffer.from(text.slice(0, at));
  const after = Buffer.from(text.slice(at + original.length));
  const prefix = randomBytes(8).toString('hex');
  let counter = 0;
  return () =>
    Buffer.concat([before, Buffer.from(prefix + (counter++).toString(16).padStart(16, '0')), after]);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const next = envelopeFactory(options.fixture);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: options.connections,
    maxFreeSockets: options.connections,
  });
  const url = new URL(options.url);
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let ok = 0;
  let errors = 0;
  let warmupRequests = 0;
  let measuring = false;

  const send = (scheduledAt: number) =>
    new Promise<void>((resolve) => {
      const body = next();
      const request = httpRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: 'POST',
          headers: { ...options.headers, 'Content-Length': String(body.length) },
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (measuring) {
              latencies.push(performance.now() - scheduledAt);
              statuses[response.statusCode ?? 0] = (statuses[response.statusCode ?? 0] ?? 0) + 1;
              if (response.statusCode === 200) ok++;
              else errors++;
            } else warmupRequests++;
            resolve();
          });
        },
      );
      request.on('error', () => {
        if (measuring) errors++;
        else warmupRequests++;
        resolve();
      });
      request.end(body);
    });

  const runFor = async (seconds: number) => {
    const end = performance.now() + seconds * 1000;
    if (options.mode === 'closed') {
      await Promise.all(
        Array.from({ length: options.connections }, async () => {
          while (performance.now() < end) await send(performance.now());
        }),
      );
      return;
    }
    // Open loop: requests leave on a fixed schedule whatever the responses do.
    const interval = 1000 / (options.rate ?? 1000);
    const inFlight: Promise<void>[] = [];
    const start = performance.now();
    let sent = 0;
    while (performance.now() < end) {
      const due = Math.floor((performance.now() - start) / interval);
      while (sent < due) {
        inFlight.push(send(start + sent * interval));
        sent++;
      }
      await new Promise((resolve) => setImmediate(resolve));
      if (inFlight.length > 10_000) void Promise.all(inFlight.splice(0, 5_000));
    }
    await Promise.all(inFlight);
  };

  if (options.warmupS > 0) await runFor(options.warmupS);
  measuring = true;
  const started = performance.now();
  await runFor(options.durationS);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    mode: options.mode,
    durationS: round(elapsed),
    requests: ok + errors,
    warmupRequests,
    ok,
    errors,
    statuses,
    rps: Math.round(ok / elapsed),
    latencyMs: {
      p50: round(percentile(latencies, 50)),
      p90: round(percentile(latencies, 90)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies[latencies.length - 1] ?? NaN),
    },
  };
}

/** Runs one load in a child process and resolves with its figures. */
export function load(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', __filename, JSON.stringify(options)],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      resolve(JSON.parse(output.trim().split('\n').pop()!) as LoadResult);
    });
  });
}

if (require.main === module) {
  runLoad(JSON.parse(process.argv[2]) as LoadOptions).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
