/**
 * Cron monitor benchmark: `npm run bench:monitors`. Boots the application in this process
 * (APP_ROLE=all, rate limits off, a fresh bench database and Redis prefix) and measures:
 *
 *   1. the clock's work per minute: 10,000 cron monitors (BENCH_MONITORS) on one-minute schedules,
 *      every one of them due, evaluated by one tick (each records a missed run and opens its
 *      incident), then a tick with nothing due;
 *   2. ingest of check-in envelopes beside event envelopes in the same run, over BENCH_CONNECTIONS
 *      (default 32) keep-alive connections for BENCH_DURATION_S (default 10) seconds each, and
 *      their ratio;
 *   3. the lag between a missed deadline and its alert: the clock ticks at the start of each
 *      minute, so a deadline waits up to a minute for its tick, then for its turn within the tick.
 *
 * Then runs the uptime part (bench/monitors-uptime.ts) when it exists. Prints a table and writes
 * bench/results/monitors.json.
 */
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { CronClockService } from '../src/monitors/crons/cron-clock.service';
import { createHttpApp } from '../src/http-app';
import { benchDatabase, EXCEPTION_FIXTURE, REDIS_URL, ROOT } from './support';

const MONITORS = Number(process.env.BENCH_MONITORS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);

async function load(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: () => string,
): Promise<{ perSecond: number; failed: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const until = Date.now() + DURATION_S * 1000;
  let ok = 0;
  let failed = 0;
  const send = () =>
    new Promise<void>((resolve) => {
      const payload = body();
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: { ...headers, 'Content-Length': Buffer.byteLength(payload) },
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode! < 300) ok++;
            else failed++;
            resolve();
          });
        },
      );
      request.on('error', () => {
        failed++;
        resolve();
      });
      request.end(payload);
    });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) await send();
    }),
  );
  agent.destroy();
  return { perSecond: ok / ((Date.now() - started) / 1000), failed };
}

async function seedMonitors(pg: Client, projectId: number, due: Date): Promise<void> {
  // One statement each: the bench measures the clock, not the seeding.
  await pg.query(
    `INSERT INTO cron_monitors (project_id, slug, name, schedule_type, schedule_value, failure_issue_threshold)
     SELECT $1, 'bench-' || i, 'bench-' || i, 'crontab', '* * * * *', 1 FROM generate_series(1, $2) AS i`,
    [projectId, MONITORS],
  );
  await pg.query(
    `INSERT INTO cron_monitor_environments (monitor_id, environment, status, next_expected_at, deadline_at, last_check_in_at)
     SELECT id, 'production', 'ok', $2::timestamptz - interval '1 minute', $2, $2::timestamptz - interval '2 minutes'
     FROM cron_monitors WHERE project_id = $1`,
    [projectId, due],
  );
}

async function main(): Promise<void> {
  const databaseUrl = await benchDatabase('error_tracker_bench_monitors', { fresh: true });
  const { app } = (await createHttpApp(
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      REDIS_PREFIX: `bench-monitors-${randomUUID().slice(0, 8)}`,
      LOG_LEVEL: 'warn',
      SERVE_DASHBOARD: 'false',
      PORT: '0',
      RETENTION_SCHEDULE: 'off',
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
    },
    { logger: false },
  )) as { app: INestApplication };
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const results: Record<string, string | number> = {};
  try {
    const [project] = (
      await pg.query<{ id: number; client_key: string }>(
        `INSERT INTO projects (name, slug, client_key) VALUES ('bench', 'bench-monitors', gen_random_uuid())
         RETURNING id, client_key`,
      )
    ).rows;
    const auth = {
      'X-Sentry-Auth': `Sentry sentry_key=${project.client_key.replace(/-/g, '')}, sentry_version=7`,
    };

    // 1. The clock.
    const now = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    await seedMonitors(pg, project.id, now);
    const clock = app.get(CronClockService);
    let started = performance.now();
    const busy = await clock.tick(now);
    const busyMs = performance.now() - started;
    started = performance.now();
    await clock.tick(now);
    const idleMs = performance.now() - started;
    results.monitors = MONITORS;
    results['tick, all due (ms)'] = Math.round(busyMs);
    results['missed runs recorded'] = busy.missed;
    results['tick, none due (ms)'] = Math.round(idleMs);
    results['tick share of a minute (%)'] = Number(((busyMs / 60_000) * 100).toFixed(1));

    // 2. Ingest: check-ins beside events.
    const fixture = readFileSync(EXCEPTION_FIXTURE, 'utf8').split('\n');
    const eventBody = () => {
      const id = randomUUID().replace(/-/g, '');
      const event = JSON.parse(fixture[2]) as Record<string, unknown>;
      event.event_id = id;
      return [JSON.stringify({ event_id: id }), fixture[1], JSON.stringify(event)].join('\n');
    };
    let slug = 0;
    const checkInBody = () =>
      [
        '{}',
        JSON.stringify({ type: 'check_in' }),
        JSON.stringify({
          check_in_id: randomUUID().replace(/-/g, ''),
          monitor_slug: `bench-${(slug++ % MONITORS) + 1}`,
          status: 'ok',
          duration: 1.2,
        }),
      ].join('\n');
    const path = `/api/${project.id}/envelope/`;
    const events = await load(port, path, auth, eventBody);
    const checkIns = await load(port, path, auth, checkInBody);
    results['event envelopes/s'] = Math.round(events.perSecond);
    results['check-in envelopes/s'] = Math.round(checkIns.perSecond);
    results['check-ins / events'] = Number((checkIns.perSecond / events.perSecond).toFixed(2));
    results['refused'] = events.failed + checkIns.failed;

    // 3. Lag: a deadline waits for the next tick (up to 60 s), then its turn in the tick.
    results['missed deadline → alert, worst (s)'] = Number((60 + busyMs / 1000).toFixed(1));
    results['missed deadline → alert, typical (s)'] = Number((30 + busyMs / 2000).toFixed(1));

    // The uptime part, when its bench is there (bench/monitors-uptime.ts, runUptimeBench).
    const uptimeBench = join(__dirname, 'monitors-uptime.ts');
    if (existsSync(uptimeBench)) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const uptime = require(uptimeBench) as {
        runUptimeBench: () => Promise<Record<string, string | number>>;
      };
      Object.assign(results, await uptime.runUptimeBench());
    }
  } finally {
    await pg.end();
    await app.close();
  }
  console.table(results);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/monitors.json'), JSON.stringify(results, null, 2));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
