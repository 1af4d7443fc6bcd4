/**
 * What inbound filters cost at ingest: `npm run bench:ingest -- filters` (BENCH_SKIP_BUILD=1 to
 * reuse dist/). One server (APP_ROLE=api, rate limits off), two projects: one without filters, one
 * with every filter on (crawlers, all legacy browsers, browser extensions, localhost, and
 * BENCH_FILTER_LIST, default 10, release globs, error-message globs and CIDR ranges; 100 is the
 * most the API allows). The events match none of them, so every filter
 * reads the event and the event is still queued: the worst case, the whole cost of checking. The
 * envelope is the @sentry/node exception fixture with a Chrome `request.headers.User-Agent` added.
 *
 * The machine is noisy, so the two projects take turns: BENCH_FILTER_ROUNDS (default 6) rounds
 * each of BENCH_FILTER_ROUND_S (default 8) seconds of closed-loop load, alternating, and the
 * ratio of each round's two runs (back to back, so the machine's drift mostly cancels) is taken;
 * the median of those ratios is the figure. Target: at least 0.95. The medians of each side are
 * printed too; so is the server process's CPU per request in each run (from /proc, which other
 * load on the machine disturbs far less than throughput), compared the same way, and the CPU of
 * the filters' check itself, measured in this process, per event.
 * Writes bench/results/ingest-filters.json.
 */
import { execSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { CompiledInboundFilters, InboundFilterSettings } from '../src/privacy/filters/inbound-filters';
import { LEGACY_BROWSERS } from '../src/privacy/filters/user-agents';
import type { LoadOptions, LoadResult } from './ingest-load';
import {
  benchDatabase,
  deleteKeys,
  EXCEPTION_FIXTURE,
  freePort,
  processCpuMs,
  REDIS_URL,
  ROOT,
  startApp,
  stop,
  waitForHttp,
} from './support';

const ROUNDS = Number(process.env.BENCH_FILTER_ROUNDS ?? 6);
const ROUND_S = Number(process.env.BENCH_FILTER_ROUND_S ?? 8);
/** Entries in each of the release, message and IP lists of the filtered project. */
const LIST_LENGTH = Number(process.env.BENCH_FILTER_LIST ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 96);
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/** The exception fixture with a browser request, so that the user-agent filters have work to do. */
function browserFixture(): string {
  const [header, itemHeader, event] = readFileSync(EXCEPTION_FIXTURE, 'utf8').split('\n');
  const payload = JSON.parse(event) as Record<string, unknown>;
  payload.request = { url: 'https://shop.example.com/cart', headers: { 'User-Agent': CHROME } };
  const path = join(ROOT, 'bench/results/exception-event-browser.envelope');
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(path, `${header}\n${itemHeader}\n${JSON.stringify(payload)}\n`);
  return path;
}

/** One crawler's envelope must be filtered: the server has loaded the filters the rounds measure. */
async function expectFiltersOn(
  url: string,
  project: { id: number; key: string },
  fixture: string,
): Promise<void> {
  const body = readFileSync(fixture, 'utf8').replace(
    CHROME,
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    await fetch(`${url}/api/${project.id}/envelope/?sentry_key=${project.key.replace(/-/g, '')}`, {
      method: 'POST',
      body: body.replace(/"event_id":"[0-9a-f]{32}"/g, `"event_id":"${randomUUID().replace(/-/g, '')}"`),
    });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    if (/^error_tracker_ingest_events_filtered_total [1-9]/m.test(metrics)) return;
    if (Date.now() > deadline)
      throw new Error('the server did not filter a crawler: are the filters loaded?');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The settings the filtered project gets: every filter on, BENCH_FILTER_LIST entries per list. */
function everyFilter(): InboundFilterSettings {
  const list = (make: (i: number) => string) => Array.from({ length: LIST_LENGTH }, (_, i) => make(i));
  return {
    browserExtensions: true,
    localhost: true,
    webCrawlers: true,
    legacyBrowsers: [...LEGACY_BROWSERS],
    releases: list((i) => `legacy-${i}.*-beta*`),
    errorMessages: list((i) => `*Known noise number ${i}*`),
    clientIps: list((i) => `198.18.${i}.0/24`),
  };
}

/** CPU of one check of the fixture's event with every filter on, best of five rounds, in µs. */
function checkCostMicros(fixture: string): number {
  const event = JSON.parse(readFileSync(fixture, 'utf8').split('\n')[2]) as Record<string, unknown>;
  const filters = new CompiledInboundFilters(everyFilter());
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 20_000; i++) filters.check(event, '127.0.0.1');
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 20_000 / 1000);
  }
  return Math.round(best * 100) / 100;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export async function compareInboundFilters(
  load: (options: LoadOptions) => Promise<LoadResult>,
): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    console.log('building (nest build) …');
    execSync('npx nest build', { cwd: ROOT, stdio: 'inherit' });
  }
  const runId = randomUUID().slice(0, 8);
  const prefix = `bench-filters-${runId}`;
  const redis = new Redis(REDIS_URL);
  const databaseUrl = await benchDatabase('error_tracker_bench', { fresh: false });
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const project = async (name: string) => {
    const key = randomUUID();
    const { rows } = await pg.query<{ id: number }>(
      'INSERT INTO projects (name, slug, client_key) VALUES ($1, $1, $2) RETURNING id',
      [`${name}-${runId}`, key],
    );
    return { id: rows[0].id, key };
  };
  const plain = await project('bench-unfiltered');
  const filtered = await project('bench-filtered');
  const settings = everyFilter();
  await pg.query(
    `INSERT INTO project_inbound_filters
       (project_id, browser_extensions, localhost, web_crawlers, legacy_browsers, releases, error_messages, client_ips)
     VALUES ($1, true, true, true, $2, $3, $4, $5)`,
    [filtered.id, settings.legacyBrowsers, settings.releases, settings.errorMessages, settings.clientIps],
  );
  const fixture = browserFixture();
  const port = await freePort();
  const server = startApp('api', {
    port,
    databaseUrl,
    redisPrefix: prefix,
    env: { MAX_EVENTS_PER_MINUTE: '0', MAX_EVENTS_PER_HOUR: '0' },
  });
  const url = `http://127.0.0.1:${port}`;
  const runs: Record<'none' | 'all', LoadResult[]> = { none: [], all: [] };
  /** The server's CPU per request in each run, µs: what the filters add, whatever else runs. */
  const cpu: Record<'none' | 'all', number[]> = { none: [], all: [] };
  try {
    await waitForHttp(`${url}/health`);
    await expectFiltersOn(url, filtered, fixture);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so that a drift of the machine favours neither.
      const order: ('none' | 'all')[] = round % 2 === 0 ? ['none', 'all'] : ['all', 'none'];
      for (const which of order) {
        const target = which === 'none' ? plain : filtered;
        const cpuBefore = processCpuMs(server.pid!);
        const result = await load({
          url: `${url}/api/${target.id}/envelope/`,
          mode: 'closed',
          connections: CONNECTIONS,
          durationS: ROUND_S,
          warmupS: 1,
          fixture,
          headers: {
            'Content-Type': 'application/x-sentry-envelope',
            'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${target.key.replace(/-/g, '')}, sentry_client=bench/1.0`,
          },
        });
        runs[which].push(result);
        // The load generator's warm-up requests are not in `requests`: the figure leans high alike on both sides.
        cpu[which].push(Math.round(((processCpuMs(server.pid!) - cpuBefore) * 1000) / result.requests));
        console.log(
          `round ${round + 1}, filters ${which}: ${result.rps} req/s, server CPU ${cpu[which][round]} µs/request, p99 ${result.latencyMs.p99} ms, errors ${result.errors}`,
        );
        await deleteKeys(redis, `${prefix}:*`);
      }
    }
  } finally {
    await stop(server);
    await deleteKeys(redis, `${prefix}:*`);
    await pg.query('DELETE FROM projects WHERE id = ANY($1::int[])', [[plain.id, filtered.id]]);
    await pg.end();
    redis.disconnect();
  }
  const summary = (which: 'none' | 'all') => ({
    medianRps: median(runs[which].map((run) => run.rps)),
    medianP50Ms: Math.round(median(runs[which].map((run) => run.latencyMs.p50)) * 10) / 10,
    medianP99Ms: Math.round(median(runs[which].map((run) => run.latencyMs.p99)) * 10) / 10,
    errors: runs[which].reduce((total, run) => total + run.errors, 0),
  });
  const none = summary('none');
  const all = summary('all');
  // Each round's two runs are back to back: their ratio cancels most of the machine's drift.
  const pairedRatios = runs.all.map((run, round) => run.rps / runs.none[round].rps);
  const ratio = Math.round(median(pairedRatios) * 1000) / 1000;
  const checkMicros = checkCostMicros(fixture);
  const cpuRatios = cpu.all.map((micros, round) => micros / cpu.none[round]);
  const cpuRatio = Math.round(median(cpuRatios) * 1000) / 1000;
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
    settings: { rounds: ROUNDS, roundS: ROUND_S, connections: CONNECTIONS, listLength: LIST_LENGTH },
    none,
    all,
    pairedRatios: pairedRatios.map((value) => Math.round(value * 1000) / 1000),
    ratio,
    checkMicrosPerEvent: checkMicros,
    serverCpuMicrosPerRequest: { none: cpu.none, all: cpu.all, medianRatio: cpuRatio },
    target: { throughputWithinFivePercent: ratio >= 0.95, cpuWithinFivePercent: cpuRatio <= 1.05 },
    rounds: runs,
  };
  writeFileSync(join(ROOT, 'bench/results/ingest-filters.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('');
  console.log('| filters | median req/s | median p50 ms | median p99 ms | errors |');
  console.log('|---------|--------------|---------------|---------------|--------|');
  for (const [name, row] of [
    ['none', none],
    ['all', all],
  ] as const) {
    console.log(
      `| ${name.padEnd(7)} | ${String(row.medianRps).padStart(12)} | ${String(row.medianP50Ms).padStart(13)} | ${String(row.medianP99Ms).padStart(13)} | ${String(row.errors).padStart(6)} |`,
    );
  }
  console.log('');
  console.log(`paired ratios (every filter on / none, per round): ${results.pairedRatios.join(', ')}`);
  console.log(
    `every filter on / none, median of the rounds: ${ratio} (target ≥ 0.95: ${ratio >= 0.95 ? 'met' : 'MISSED'})`,
  );
  console.log(
    `server CPU per request, every filter on / none, median of the rounds: ${cpuRatio} (target ≤ 1.05: ${cpuRatio <= 1.05 ? 'met' : 'MISSED'}); medians ${median(cpu.all)} against ${median(cpu.none)} µs`,
  );
  console.log(`the filters' own check, in this process: ${checkMicros} µs per event `);
  console.log('written to bench/results/ingest-filters.json');
}
