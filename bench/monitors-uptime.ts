/**
 * Uptime monitors benchmark: BENCH_UPTIME_MONITORS (1,000) monitors checking a local HTTP site every
 * BENCH_UPTIME_INTERVAL_S (60) seconds for BENCH_UPTIME_S (150) seconds, on the real clock, in one
 * instance of the application (API and workers, as `APP_ROLE=all` runs them) against a bench
 * database and a fresh Redis prefix. The monitors' first checks are spread over the first interval,
 * as monitors created over time are. Reports:
 *
 * - checks per second achieved, against the rate the monitors ask for;
 * - scheduling lag, from a check's due time to its start (`checked_at − due_at`): p50, p95, p99, max;
 * - checks missed (a due slot without its check) and run twice (impossible by the key; counted from
 *   the site's requests);
 * - work per minute: the ticks' time (claiming and queueing), the process's CPU, rows written.
 *
 * `runUptimeBench()` is what `npm run bench:monitors` calls; `node -r ts-node/register/transpile-only
 * bench/monitors-uptime.ts` runs it alone and writes bench/results/monitors-uptime.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createHttpApp } from '../src/http-app';
import { ProjectsService } from '../src/projects/projects.service';
import { DEFAULT_SETTINGS } from '../src/monitors/uptime/uptime-monitor-rules';
import { UptimeMonitorsRepository } from '../src/monitors/uptime/uptime-monitors.repository';
import { UptimeScheduler } from '../src/monitors/uptime/uptime-scheduler.service';
import { benchDatabase, percentile, REDIS_URL, ROOT } from './support';

const MONITORS = Number(process.env.BENCH_UPTIME_MONITORS ?? 1_000);
const INTERVAL_S = Number(process.env.BENCH_UPTIME_INTERVAL_S ?? 60);
const DURATION_S = Number(process.env.BENCH_UPTIME_S ?? 150);
/** Checks due this close to the end may still be running: not counted. */
const SETTLE_S = 15;
const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A site that answers every request at once, counting requests per monitor path. */
async function startSite(): Promise<{
  url: string;
  requests: Map<string, number>;
  close: () => Promise<void>;
}> {
  const requests = new Map<string, number>();
  const server = http.createServer((req, res) => {
    requests.set(req.url ?? '', (requests.get(req.url ?? '') ?? 0) + 1);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function runUptimeBench(): Promise<Record<string, string | number>> {
  const databaseUrl = await benchDatabase('error_tracker_bench_uptime', { fresh: true });
  const site = await startSite();
  const { app } = await createHttpApp(
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      REDIS_PREFIX: `bench-uptime-${randomUUID().slice(0, 8)}`,
      LOG_LEVEL: 'warn',
      SERVE_DASHBOARD: 'false',
      RETENTION_SCHEDULE: 'off',
      UPTIME_ALLOW_PRIVATE_NETWORKS: 'true',
      PORT: '0',
    },
    { logger: false },
  );
  await app.init();
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const scheduler = app.get(UptimeScheduler);
    let tickMs = 0;
    let ticks = 0;
    const tick = scheduler.tick.bind(scheduler);
    scheduler.tick = async () => {
      const started = performance.now();
      try {
        return await tick();
      } finally {
        tickMs += performance.now() - started;
        ticks++;
      }
    };

    const project = await app.get(ProjectsService).create(`uptime bench ${randomUUID().slice(0, 6)}`);
    const monitors = app.get(UptimeMonitorsRepository);
    const start = Date.now() + 2_000;
    const ids: number[] = [];
    for (let i = 0; i < MONITORS; i++) {
      const firstDue = new Date(start + Math.floor((i * INTERVAL_S * 1000) / MONITORS));
      const row = await monitors.insert(
        project.id,
        {
          ...DEFAULT_SETTINGS,
          name: `site ${i}`,
          url: `${site.url}/m/${i}`,
          intervalSeconds: INTERVAL_S,
          timeoutSeconds: 10,
        },
        firstDue,
      );
      ids.push(row.id);
    }
    const rowsBefore = await writtenRows(pg);
    const cpuBefore = process.cpuUsage();
    const end = start + DURATION_S * 1000;
    while (Date.now() < end) await sleepMs(1_000);
    const cpu = process.cpuUsage(cpuBefore);
    const rowsWritten = (await writtenRows(pg)) - rowsBefore;

    const counted = new Date(end - SETTLE_S * 1000);
    const checks: { monitor_id: number; lag_ms: number }[] = await pg
      .query(
        `SELECT monitor_id, (extract(epoch FROM checked_at - due_at) * 1000)::int AS lag_ms
         FROM uptime_checks WHERE monitor_id = ANY($1::int[]) AND due_at <= $2`,
        [ids, counted],
      )
      .then((result) => result.rows);
    let expected = 0;
    for (let i = 0; i < MONITORS; i++) {
      const firstDue = start + Math.floor((i * INTERVAL_S * 1000) / MONITORS);
      if (firstDue <= counted.getTime())
        expected += Math.floor((counted.getTime() - firstDue) / (INTERVAL_S * 1000)) + 1;
    }
    const lags = checks.map((check) => check.lag_ms).sort((a, b) => a - b);
    const requests = [...site.requests.values()].reduce((sum, n) => sum + n, 0);
    const recordedTotal: { n: number }[] = (
      await pg.query('SELECT count(*)::int AS n FROM uptime_checks WHERE monitor_id = ANY($1::int[])', [ids])
    ).rows;
    const minutes = DURATION_S / 60;
    return {
      uptime_monitors: MONITORS,
      uptime_interval_s: INTERVAL_S,
      uptime_duration_s: DURATION_S,
      uptime_checks_expected: expected,
      uptime_checks_recorded: checks.length,
      uptime_checks_missed: Math.max(0, expected - checks.length),
      uptime_site_requests_beyond_checks: requests - recordedTotal[0].n,
      uptime_checks_per_s: Number((recordedTotal[0].n / DURATION_S).toFixed(1)),
      uptime_checks_per_s_asked: Number((MONITORS / INTERVAL_S).toFixed(1)),
      uptime_lag_p50_ms: percentile(lags, 50),
      uptime_lag_p95_ms: percentile(lags, 95),
      uptime_lag_p99_ms: percentile(lags, 99),
      uptime_lag_max_ms: lags.at(-1) ?? 0,
      uptime_ticks_per_min: Math.round(ticks / minutes),
      uptime_tick_ms_per_min: Math.round(tickMs / minutes),
      uptime_cpu_ms_per_min: Math.round((cpu.user + cpu.system) / 1000 / minutes),
      uptime_rows_written_per_min: Math.round(rowsWritten / minutes),
    };
  } finally {
    await pg.end();
    await app.close();
    await site.close();
  }
}

/** Rows inserted and updated in the uptime tables so far (PostgreSQL's own statistics). */
async function writtenRows(pg: Client): Promise<number> {
  const result = await pg.query(
    `SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint AS n FROM pg_stat_user_tables
      WHERE relname IN ('uptime_monitors', 'uptime_checks', 'uptime_check_hours')`,
  );
  return Number(result.rows[0].n);
}

if (require.main === module) {
  runUptimeBench()
    .then((results) => {
      console.table(results);
      mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
      writeFileSync(join(ROOT, 'bench', 'results', 'monitors-uptime.json'), JSON.stringify(results, null, 2));
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
