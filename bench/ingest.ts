/**
 * Ingest benchmark: `npm run bench:ingest` (BENCH_DURATION_S=20 by default; BENCH_SKIP_BUILD=1 to
 * reuse dist/). Starts the real server (`node dist/main.js`, APP_ROLE=api so no worker competes,
 * rate limits off, a bench database and a fresh Redis prefix) and, for comparison in the same run, a
 * bare node:http server doing one Redis LPUSH per request. Load comes from a separate process with
 * keep-alive connections:
 *
 *   1. closed loop, BENCH_CONNECTIONS (default 96) connections, against the baseline, then the server;
 *   2. open loop at BENCH_OPEN_RATE (default 1000) envelopes/s against the server, for latency
 *      (measured from each request's scheduled send time, so a stall is not hidden);
 *   3. a saturating burst (BENCH_BURST_CONNECTIONS, default 32, for BENCH_BURST_S, default 12 s)
 *      followed at once by the same open loop, the burst's jobs still queued: the latency after it.
 *
 * The envelope is the @sentry/node 10 exception fixture with a fresh event_id per request. The
 * server's peak RSS is read from /proc/<pid>/status (VmHWM). Prints a table and writes
 * bench/results/ingest.json.
 *
 * `npm run bench:ingest -- filters` measures instead what inbound filters cost: see ingest-filters.ts.
 *
 * The load generator is ingest-load.ts; this file, run as `ingest.ts baseline <port> <redis url> <key>`,
 * is also the baseline server.
 */
import { ChildProcess, execSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import {
  benchDatabase,
  deleteKeys,
  freePort,
  processCpuMs,
  procStatus,
  REDIS_URL,
  ROOT,
  stop,
  waitForHttp,
} from './support';
import { compareInboundFilters } from './ingest-filters';
import { load, LoadOptions, LoadResult } from './ingest-load';

/**
 * The checkout whose build (dist/) the server runs from: another worktree's, to compare two versions
 * of the server with the same load generator and baseline (its dist/ is built already).
 */
const SERVER_ROOT = process.env.BENCH_SERVER_DIR ?? ROOT;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 96);
const OPEN_RATE = Number(process.env.BENCH_OPEN_RATE ?? 1000);
const BURST_CONNECTIONS = Number(process.env.BENCH_BURST_CONNECTIONS ?? 32);
const BURST_S = Number(process.env.BENCH_BURST_S ?? 12);
const RUN_ID = randomUUID().slice(0, 8);

// ---------------------------------------------------------------------------------------------
// Baseline server (child process): the floor of "HTTP in, one Redis write, HTTP out" in Node.

function runBaseline(port: number, redisUrl: string, key: string): void {
  const redis = new Redis(redisUrl);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      redis.lpush(key, Buffer.concat(chunks)).then(
        () => {
          response.writeHead(200, { 'Content-Type': 'application/json' });
          response.end('{"id":"00000000000000000000000000000000"}');
        },
        () => {
          response.writeHead(503);
          response.end();
        },
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => process.send?.('ready'));
}

// ---------------------------------------------------------------------------------------------
// Orchestrator

function tsChild(args: string[], options: { ipc?: boolean } = {}): ChildProcess {
  return spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', __filename, ...args], {
    cwd: ROOT,
    stdio: options.ipc ? ['ignore', 'pipe', 'inherit', 'ipc'] : ['ignore', 'pipe', 'inherit'],
  });
}

/** The server's counters of accepted events and digest jobs written, from its /metrics. */
async function queueCounters(serverUrl: string): Promise<{ events: number; jobs: number }> {
  const text = await (await fetch(`${serverUrl}/metrics`)).text();
  const counter = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    events: counter('error_tracker_ingest_events_accepted_total'),
    jobs: counter('error_tracker_digest_jobs_enqueued_total'),
  };
}

/** Events per digest job during a run: how concurrent requests shared jobs (see DigestProducer). */
async function eventsPerJobDuring(
  serverUrl: string,
  run: () => Promise<LoadResult>,
): Promise<[LoadResult, number]> {
  const before = await queueCounters(serverUrl);
  const result = await run();
  const after = await queueCounters(serverUrl);
  return [result, Math.round(((after.events - before.events) / (after.jobs - before.jobs)) * 100) / 100];
}

async function orchestrate(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1' && SERVER_ROOT === ROOT) {
    console.log('building (nest build) …');
    execSync('npx nest build', { cwd: ROOT, stdio: 'inherit' });
  }
  const redis = new Redis(REDIS_URL);
  const prefix = `bench-${RUN_ID}`;

  // A bench database of its own, migrated like production, with one project.
  const databaseUrl = new URL(await benchDatabase('error_tracker_bench', { fresh: false }));
  const pg = new Client({ connectionString: databaseUrl.toString() });
  await pg.connect();
  const clientKey = randomUUID();
  const { rows } = await pg.query<{ id: number }>(
    'INSERT INTO projects (name, slug, client_key) VALUES ($1, $1, $2) RETURNING id',
    [`bench-${RUN_ID}`, clientKey],
  );
  const projectId = rows[0].id;
  const headers = {
    'Content-Type': 'application/x-sentry-envelope',
    'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${clientKey.replace(/-/g, '')}, sentry_client=bench/1.0`,
  };

  // 1. Baseline.
  const baselinePort = await freePort();
  const baselineKey = `${prefix}:baseline`;
  const baseline = tsChild(['baseline', String(baselinePort), REDIS_URL, baselineKey], { ipc: true });
  await new Promise((resolve) => baseline.once('message', resolve));
  console.log(`baseline: closed loop, ${CONNECTIONS} connections, ${DURATION_S} s …`);
  const baselineResult = await load({
    url: `http://127.0.0.1:${baselinePort}/api/${projectId}/envelope/`,
    mode: 'closed',
    connections: CONNECTIONS,
    durationS: DURATION_S,
    headers,
    warmupS: 2,
  });
  await stop(baseline);
  await redis.unlink(baselineKey);

  // 2. The real server.
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=bench/results/profiles'] : []),
      'dist/main.js',
    ],
    {
      cwd: SERVER_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        NODE_ENV: 'production',
        APP_ROLE: 'api',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl.toString(),
        REDIS_URL,
        REDIS_PREFIX: prefix,
        MAX_EVENTS_PER_MINUTE: '0',
        MAX_EVENTS_PER_HOUR: '0',
        LOG_LEVEL: 'warn',
        SERVE_DASHBOARD: 'false',
      },
    },
  );
  const serverUrl = `http://127.0.0.1:${port}`;
  const serverLoad = (options: Omit<LoadOptions, 'url' | 'headers'>) =>
    load({ url: `${serverUrl}/api/${projectId}/envelope/`, headers, ...options });
  let closedResult: LoadResult;
  let openResult: LoadResult;
  let burstResult: LoadResult;
  let afterBurstResult: LoadResult;
  let peakRssMb: number;
  let queued: number;
  let eventsPerJobClosed: number;
  let eventsPerJobOpen: number;
  let cpuMicrosPerRequest: number;
  try {
    await waitForHttp(`${serverUrl}/health`);
    console.log(`server: closed loop, ${CONNECTIONS} connections, ${DURATION_S} s …`);
    const cpuBeforeClosed = processCpuMs(server.pid!);
    [closedResult, eventsPerJobClosed] = await eventsPerJobDuring(serverUrl, () =>
      serverLoad({
        mode: 'closed',
        connections: CONNECTIONS,
        durationS: DURATION_S,
        warmupS: 2,
      }),
    );
    // Warm-up requests included on both sides of the division: /proc counts the process's whole CPU.
    cpuMicrosPerRequest = Math.round(
      ((processCpuMs(server.pid!) - cpuBeforeClosed) * 1000) /
        (closedResult.requests + closedResult.warmupRequests),
    );
    queued = await redis.llen(`${prefix}:digest:wait`);
    await deleteKeys(redis, `${prefix}:*`);
    console.log(`server: open loop, ${OPEN_RATE}/s, ${DURATION_S} s …`);
    [openResult, eventsPerJobOpen] = await eventsPerJobDuring(serverUrl, () =>
      serverLoad({
        mode: 'open',
        connections: 64,
        rate: OPEN_RATE,
        durationS: DURATION_S,
        warmupS: 1,
      }),
    );
    // 3. A saturating burst, then steady traffic at once, with the burst's jobs still queued (no
    // worker runs): the latency of the steady part shows what the burst leaves behind (garbage,
    // a full queue in Redis).
    await deleteKeys(redis, `${prefix}:*`);
    console.log(
      `server: burst, ${BURST_CONNECTIONS} connections, ${BURST_S} s, then open loop ${OPEN_RATE}/s, ${DURATION_S} s …`,
    );
    burstResult = await serverLoad({
      mode: 'closed',
      connections: BURST_CONNECTIONS,
      durationS: BURST_S,
      warmupS: 0,
    });
    afterBurstResult = await serverLoad({
      mode: 'open',
      connections: 64,
      rate: OPEN_RATE,
      durationS: DURATION_S,
      warmupS: 0,
    });
    peakRssMb = procStatus(server.pid!, 'VmHWM');
  } finally {
    await stop(server);
    await deleteKeys(redis, `${prefix}:*`);
    await pg.query('DELETE FROM projects WHERE id = $1', [projectId]);
    await pg.end();
    redis.disconnect();
  }

  const ratio = closedResult.rps / baselineResult.rps;
  const targets = {
    throughput: closedResult.rps >= 5000,
    vsBaseline: ratio >= 0.5,
    p99At1000: openResult.latencyMs.p99 <= 25 && openResult.rps >= OPEN_RATE * 0.95,
    p99At1000AfterBurst: afterBurstResult.latencyMs.p99 <= 25 && afterBurstResult.rps >= OPEN_RATE * 0.95,
    peakRss: peakRssMb <= 300,
  };
  const results = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    settings: {
      durationS: DURATION_S,
      connections: CONNECTIONS,
      openRate: OPEN_RATE,
      fixture: 'exception-event.envelope',
    },
    baseline: baselineResult,
    server: {
      closed: closedResult,
      open: openResult,
      burst: burstResult,
      afterBurst: afterBurstResult,
      peakRssMb: Math.round(peakRssMb),
      /** The server process's CPU per request in the closed loop (/proc): steadier than throughput on a busy machine. */
      cpuMicrosPerRequestClosed: cpuMicrosPerRequest!,
      jobsQueuedInClosedRun: queued,
      eventsPerDigestJob: { closed: eventsPerJobClosed, open: eventsPerJobOpen },
    },
    ratioToBaseline: Math.round(ratio * 100) / 100,
    targets,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/ingest.json'), `${JSON.stringify(results, null, 2)}\n`);

  const row = (name: string, r: LoadResult) =>
    `| ${name.padEnd(34)} | ${String(r.rps).padStart(7)} | ${String(r.latencyMs.p50).padStart(7)} | ${String(r.latencyMs.p99).padStart(7)} | ${String(r.latencyMs.max).padStart(8)} | ${String(r.errors).padStart(6)} |`;
  console.log('');
  console.log('| run                                |   req/s | p50 ms  | p99 ms  |  max ms  | errors |');
  console.log('|------------------------------------|---------|---------|---------|----------|--------|');
  console.log(row(`baseline http+LPUSH, ${CONNECTIONS} conns`, baselineResult));
  console.log(row(`server closed loop, ${CONNECTIONS} conns`, closedResult));
  console.log(row(`server open loop, ${OPEN_RATE}/s offered`, openResult));
  console.log(row(`burst, ${BURST_CONNECTIONS} conns, ${BURST_S} s`, burstResult));
  console.log(row(`then open loop, ${OPEN_RATE}/s offered`, afterBurstResult));
  console.log('');
  console.log(
    `ratio server/baseline: ${results.ratioToBaseline}; peak RSS ${results.server.peakRssMb} MB; jobs queued (closed run incl. warm-up): ${queued}`,
  );
  console.log(`server CPU per request in the closed loop: ${cpuMicrosPerRequest!} µs`);
  console.log(
    `events per digest job: ${eventsPerJobClosed} in the closed loop, ${eventsPerJobOpen} in the open loop`,
  );
  console.log(
    `targets: ${Object.entries(targets)
      .map(([k, v]) => `${k} ${v ? 'met' : 'MISSED'}`)
      .join(', ')}`,
  );
  console.log('written to bench/results/ingest.json');
}

// ---------------------------------------------------------------------------------------------

const [mode, ...args] = process.argv.slice(2);
if (mode === 'baseline') {
  runBaseline(Number(args[0]), args[1], args[2]);
} else if (mode === 'filters') {
  compareInboundFilters(load).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  orchestrate().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
