/**
 * Chaos suite: `npm run test:chaos`. Proves that an event the service acknowledged (200 {"id"}) is
 * stored exactly once whatever breaks in between. Starts its own PostgreSQL and Redis (temporary
 * folders, free loopback ports; never the shared 5432/6379), builds the server (`npx nest build`,
 * skipped with CHAOS_SKIP_BUILD=1) and runs it as two processes, `APP_ROLE=api` and
 * `APP_ROLE=worker`, then sends envelopes at a steady rate while it injects, in turn:
 *
 *   1. PostgreSQL down (`pg_ctl stop -m fast`) for CHAOS_PG_OUTAGE_S (default 140 s: longer than the
 *      digest job's retry budget of 8 attempts from 1 s, about 127 s), then started again;
 *   2. the worker SIGKILLed while it digests a backlog (it is paused with SIGSTOP while a burst
 *      arrives, resumed, and killed once a few hundred rows of the backlog are committed), then
 *      started again (its unfinished jobs come back through BullMQ's stalled-job check, 1-2 minutes);
 *   3. Redis restarted (SHUTDOWN, which flushes the AOF, then started on the same port and folder);
 *   4. the api SIGKILLed during sends, then started again.
 *
 * Then it waits (bounded) for the digest backlog to drain and checks, per fault and overall: every
 * acknowledged id is in `events` exactly once, SUM(issues.event_count) equals the stored events, and
 * BullMQ's failed set is empty. Prints a table and `N passed, N failed`; exit code 0 only when all
 * pass. Logs and results.json go to test-artifacts/chaos/<timestamp>/.
 *
 * Knobs: CHAOS_RATE (envelopes/s, default 100), CHAOS_CONNECTIONS (4), CHAOS_GROUPS (36),
 * CHAOS_BURST (3000), CHAOS_REDIS_DOWN_S (5), CHAOS_API_DOWN_S (2), CHAOS_DRAIN_TIMEOUT_S (120),
 * CHAOS_TIMEOUT_S (hard stop of the whole run, 600), CHAOS_KEEP_TMP=1 keeps the data folders.
 */
import { execSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { EXCEPTION_FIXTURE, freePort } from '../../bench/support';
import { ACK, formatOutcomes, LoadGenerator } from './load';
import { AppProcess, Cleanup, Postgres, RedisServer, serviceEnvironment, sleep, tail } from './processes';

const ROOT = join(__dirname, '../..');
const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};
const PG_OUTAGE_S = num('CHAOS_PG_OUTAGE_S', 140);
const RATE = num('CHAOS_RATE', 100);
const CONNECTIONS = Math.max(1, num('CHAOS_CONNECTIONS', 4));
const GROUPS = Math.max(1, num('CHAOS_GROUPS', 36));
const BURST = num('CHAOS_BURST', 3000);
const REDIS_DOWN_S = num('CHAOS_REDIS_DOWN_S', 5);
const API_DOWN_S = num('CHAOS_API_DOWN_S', 2);
const DRAIN_TIMEOUT_S = num('CHAOS_DRAIN_TIMEOUT_S', 120);
const TIMEOUT_S = num('CHAOS_TIMEOUT_S', 600);
const PREFIX = 'chaos';
const DATABASE = 'error_tracker_chaos';

const startedAt = Date.now();
const log = (message: string) =>
  console.log(`[+${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${message}`);

interface Phase {
  name: string;
  label: string;
  notes: string[];
}

interface PhaseReport {
  fault: string;
  sent: number;
  acknowledged: number;
  stored: number;
  lost: number;
  duplicated: number;
  storedWithoutAck: number;
  statuses: string;
  lostBreakdown: string;
  notes: string[];
  passed: boolean;
}

/** One short-lived PostgreSQL connection per call: the suite's own connections must survive the outage. */
async function query<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface Backlog {
  wait: number;
  active: number;
  paused: number;
  prioritized: number;
  delayed: number;
  failed: number;
  total: number;
}

async function backlog(redis: Redis): Promise<Backlog> {
  const base = `${PREFIX}:digest`;
  const results = await redis
    .multi()
    .llen(`${base}:wait`)
    .llen(`${base}:active`)
    .llen(`${base}:paused`)
    .zcard(`${base}:prioritized`)
    .zcard(`${base}:delayed`)
    .zcard(`${base}:failed`)
    .exec();
  if (!results) throw new Error('Redis transaction aborted');
  const [wait, active, paused, prioritized, delayed, failed] = results.map(([error, value]) => {
    if (error) throw error;
    return Number(value);
  });
  return {
    wait,
    active,
    paused,
    prioritized,
    delayed,
    failed,
    total: wait + active + paused + prioritized + delayed,
  };
}

const describeBacklog = (b: Backlog) =>
  `waiting ${b.wait}, active ${b.active}, delayed ${b.delayed}, prioritized ${b.prioritized}, paused ${b.paused}, failed ${b.failed}`;

async function main(cleanup: Cleanup, state: { load?: LoadGenerator; logFiles: string[] }): Promise<number> {
  // ---------------------------------------------------------------------------------------------
  // Build and start everything.
  if (process.env.CHAOS_SKIP_BUILD !== '1') {
    log('building (npx nest build) …');
    execSync('npx nest build', { cwd: ROOT, stdio: 'inherit' });
  }
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/main.js is missing: build first');

  const artifacts = join(ROOT, 'test-artifacts/chaos', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(artifacts, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'chaos-'));
  chmodSync(tmp, 0o755); // the postgres OS user must reach its folder inside
  log(`artifacts in ${artifacts}, data in ${tmp}`);

  const [pgPort, redisPort, apiPort, workerPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const pg = new Postgres(join(tmp, 'pg'), pgPort);
  mkdirSync(pg.baseDir);
  cleanup.add('remove temporary data', async () => {
    if (existsSync(pg.logFile)) copyFileSync(pg.logFile, join(artifacts, 'postgres.log'));
    if (process.env.CHAOS_KEEP_TMP === '1') console.log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  });
  state.logFiles.push(
    join(artifacts, 'api.log'),
    join(artifacts, 'worker.log'),
    join(artifacts, 'redis.log'),
    pg.logFile,
  );

  log(`PostgreSQL: initdb, start on 127.0.0.1:${pgPort}`);
  await pg.init();
  cleanup.add('stop PostgreSQL', async () => {
    if (!(await pg.running())) return;
    await pg.stop('fast').catch(() => pg.stop('immediate'));
  });
  await pg.start();

  const redisServer = new RedisServer(join(tmp, 'redis'), redisPort, join(artifacts, 'redis.log'));
  log(`Redis: start on 127.0.0.1:${redisPort} (AOF everysec)`);
  cleanup.add('stop Redis', () => redisServer.shutdown());
  await redisServer.start();

  const databaseUrl = pg.url(DATABASE);
  const env = serviceEnvironment({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisServer.url,
    REDIS_PREFIX: PREFIX,
    PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
    MAX_EVENTS_PER_MINUTE: '0',
    MAX_EVENTS_PER_HOUR: '0',
    LOG_LEVEL: 'warn',
    SERVE_DASHBOARD: 'false',
  });
  const api = new AppProcess('api', ROOT, apiPort, env, artifacts);
  const worker = new AppProcess('worker', ROOT, workerPort, env, artifacts);
  cleanup.add('stop api', async () => {
    api.supervise = false;
    await api.stop();
  });
  cleanup.add('stop worker', async () => {
    worker.supervise = false;
    await worker.stop();
  });
  log('starting api (creates and migrates the database), then worker');
  await api.start();
  await worker.start();

  const redis = new Redis({
    host: '127.0.0.1',
    port: redisPort,
    maxRetriesPerRequest: 1,
    retryStrategy: () => 300,
  });
  redis.on('error', () => undefined);
  cleanup.add('close monitor connection', async () => redis.disconnect());

  const clientKey = randomUUID();
  const [{ id: projectId }] = await query<{ id: number }>(
    databaseUrl,
    'INSERT INTO projects (name, slug, client_key) VALUES ($1, $1, $2) RETURNING id',
    ['chaos', clientKey],
  );
  const countStored = async () =>
    (
      await query<{ n: number }>(databaseUrl, 'SELECT count(*)::int AS n FROM events WHERE project_id = $1', [
        projectId,
      ])
    )[0].n;

  const load = new LoadGenerator({
    url: `${api.url}/api/${projectId}/envelope/`,
    headers: {
      'Content-Type': 'application/x-sentry-envelope',
      'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${clientKey.replace(/-/g, '')}, sentry_client=chaos/1.0`,
    },
    fixture: EXCEPTION_FIXTURE,
    groups: GROUPS,
    rate: RATE,
    connections: CONNECTIONS,
  });
  state.load = load;
  cleanup.add('stop load', async () => load.destroy());

  // Smoke: one event end to end, or nothing below means anything.
  load.phase = 'smoke';
  await load.burst(1, 1);
  const smoke = load.records[0];
  if (smoke.outcome !== ACK) throw new Error(`smoke test: the api answered ${smoke.outcome} to one envelope`);
  for (let waited = 0; (await countStored()) === 0; waited += 200) {
    if (waited > 30_000) throw new Error('smoke test: an acknowledged event was not stored within 30 s');
    await sleep(200);
  }
  log(
    `project ${projectId} ready; smoke event stored. Load: ${RATE}/s over ${CONNECTIONS} keep-alive connections, ${GROUPS} groups`,
  );

  // ---------------------------------------------------------------------------------------------
  // Faults, one after the other, under steady load.
  const phases: Phase[] = [];
  const begin = (name: string, label: string): Phase => {
    const phase = { name, label, notes: [] };
    phases.push(phase);
    load.phase = name;
    log(`== ${label}`);
    return phase;
  };
  const note = (phase: Phase, message: string) => {
    phase.notes.push(message);
    log(`   ${message}`);
  };
  load.start();

  {
    const phase = begin('postgres', `1. PostgreSQL down ${PG_OUTAGE_S} s`);
    await sleep(5_000);
    await pg.stop('fast');
    note(phase, 'PostgreSQL stopped (pg_ctl stop -m fast)');
    const until = Date.now() + PG_OUTAGE_S * 1000;
    while (Date.now() < until) {
      await sleep(Math.min(30_000, until - Date.now()));
      const b = await backlog(redis).catch(() => undefined);
      if (Date.now() < until && b) log(`   outage continues; backlog: ${describeBacklog(b)}`);
    }
    await pg.start();
    const b = await backlog(redis).catch(() => undefined);
    note(phase, `PostgreSQL started again; backlog: ${b ? describeBacklog(b) : 'unknown'}`);
    await sleep(5_000);
  }

  {
    const phase = begin('worker', '2. worker SIGKILL mid-batch');
    await sleep(2_000);
    worker.signal('SIGSTOP');
    const pausedAt = Date.now();
    await load.burst(BURST, 16);
    await sleep(Math.max(0, 3_000 - (Date.now() - pausedAt)));
    const before = await backlog(redis);
    const storedBefore = await countStored();
    note(
      phase,
      `worker paused (SIGSTOP) while a burst of ${BURST} arrived; backlog: ${describeBacklog(before)}`,
    );
    worker.signal('SIGCONT');
    const killAfterRows = Math.max(1, Math.min(300, Math.floor(before.wait / 10)));
    const deadline = Date.now() + 10_000;
    let evidence = '';
    const monitor = new Client({ connectionString: databaseUrl });
    await monitor.connect();
    try {
      while (Date.now() < deadline) {
        const [{ n }] = (
          await monitor.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [
            projectId,
          ])
        ).rows;
        const active = await redis.llen(`${PREFIX}:digest:active`);
        // Well into the backlog (the worker at full concurrency), with jobs still in flight.
        if (n - storedBefore >= killAfterRows && active > 0) {
          evidence = `${n - storedBefore} rows committed since resume, ${active} jobs active`;
          break;
        }
        await sleep(5);
      }
    } finally {
      await monitor.end().catch(() => undefined);
    }
    await worker.kill();
    const after = await backlog(redis);
    note(
      phase,
      `worker SIGKILLed ${Date.now() - pausedAt} ms after the pause: ${evidence || 'NO evidence of a batch in progress'}; backlog: ${describeBacklog(after)}`,
    );
    await sleep(2_000);
    await worker.start();
    note(phase, 'worker started again');
    await sleep(5_000);
  }

  {
    const phase = begin('redis', `3. Redis restart (down ${REDIS_DOWN_S} s)`);
    await sleep(5_000);
    const before = await backlog(redis);
    await redisServer.shutdown();
    note(phase, `Redis shut down (SHUTDOWN, AOF flushed); backlog before: ${describeBacklog(before)}`);
    await sleep(REDIS_DOWN_S * 1000);
    await redisServer.start();
    await sleep(500);
    const after = await backlog(redis).catch(() => undefined);
    note(phase, `Redis started again from its AOF; backlog: ${after ? describeBacklog(after) : 'unknown'}`);
    await sleep(10_000);
  }

  {
    const phase = begin('api', `4. api SIGKILL (down ${API_DOWN_S} s)`);
    await sleep(5_000);
    await api.kill();
    note(phase, 'api SIGKILLed');
    await sleep(API_DOWN_S * 1000);
    await api.start();
    note(phase, 'api started again');
    await sleep(8_000);
  }

  await load.stop();
  load.phase = 'after';
  log(`load stopped: ${load.records.length} requests sent`);

  // ---------------------------------------------------------------------------------------------
  // Drain, bounded.
  const drainDeadline = Date.now() + DRAIN_TIMEOUT_S * 1000;
  let drained = false;
  let last: Backlog | undefined;
  let lastLog = 0;
  for (let quiet = 0; Date.now() < drainDeadline;) {
    last = await backlog(redis).catch(() => last);
    quiet = last && last.total === 0 ? quiet + 1 : 0;
    if (quiet >= 3) {
      drained = true;
      break;
    }
    if (Date.now() - lastLog > 10_000 && last) {
      lastLog = Date.now();
      log(`draining: ${describeBacklog(last)}`);
    }
    await sleep(1_000);
  }
  log(
    drained
      ? 'digest backlog drained'
      : `digest backlog NOT drained within ${DRAIN_TIMEOUT_S} s: ${last ? describeBacklog(last) : '?'}`,
  );

  // ---------------------------------------------------------------------------------------------
  // Checks.
  const storedRows = await query<{ id: string }>(
    databaseUrl,
    'SELECT id::text AS id FROM events WHERE project_id = $1',
    [projectId],
  );
  const stored = new Set(storedRows.map((row) => row.id));
  const duplicates = new Map(
    (
      await query<{ id: string; n: number }>(
        databaseUrl,
        'SELECT id::text AS id, count(*)::int AS n FROM events WHERE project_id = $1 GROUP BY id HAVING count(*) > 1',
        [projectId],
      )
    ).map((row) => [row.id, row.n]),
  );
  const [totals] = await query<{ events: number; counted: number; issues: number }>(
    databaseUrl,
    `SELECT (SELECT count(*)::int FROM events WHERE project_id = $1) AS events,
            (SELECT coalesce(sum(event_count), 0)::int FROM issues WHERE project_id = $1) AS counted,
            (SELECT count(*)::int FROM issues WHERE project_id = $1) AS issues`,
    [projectId],
  );
  const final = await backlog(redis);
  const failedReasons = await failedJobReasons(redis);
  const sentIds = new Set(load.records.map((record) => record.id));
  const phantoms = [...stored].filter((id) => !sentIds.has(id)).length;

  const reports: PhaseReport[] = [];
  for (const phase of phases) {
    const records = load.records.filter((record) => record.phase === phase.name);
    const acked = records.filter((record) => record.outcome === ACK);
    const lostIds = acked.filter((record) => !stored.has(record.id)).map((record) => record.id);
    const duplicated = acked.filter((record) => duplicates.has(record.id)).length;
    const report: PhaseReport = {
      fault: phase.label,
      sent: records.length,
      acknowledged: acked.length,
      stored: acked.length - lostIds.length,
      lost: lostIds.length,
      duplicated,
      storedWithoutAck: records.filter((record) => record.outcome !== ACK && stored.has(record.id)).length,
      statuses: formatOutcomes(load.outcomes(phase.name)),
      lostBreakdown: lostIds.length > 0 ? await explainLost(redis, projectId, lostIds) : '',
      notes: phase.notes,
      passed: acked.length > 0 && lostIds.length === 0 && duplicated === 0,
    };
    if (acked.length === 0) report.notes.push('nothing was acknowledged: the phase proves nothing');
    reports.push(report);
  }
  const unexpected = [...api.unexpectedExits, ...worker.unexpectedExits];
  const consistency = {
    events: totals.events,
    eventCountSum: totals.counted,
    issues: totals.issues,
    duplicateIds: duplicates.size,
    failedJobs: final.failed,
    backlogLeft: final.total,
    drained,
    phantoms,
    passed:
      totals.events === totals.counted &&
      duplicates.size === 0 &&
      final.failed === 0 &&
      drained &&
      phantoms === 0,
  };

  // ---------------------------------------------------------------------------------------------
  // Report.
  const rows = reports.map((r) => [
    r.fault,
    String(r.sent),
    String(r.acknowledged),
    String(r.stored),
    String(r.lost),
    String(r.duplicated),
    String(r.storedWithoutAck),
    r.passed ? 'PASS' : 'FAIL',
    r.statuses,
  ]);
  const head = [
    'fault',
    'sent',
    'acknowledged',
    'stored',
    'lost',
    'duplicated',
    'stored w/o ack',
    'result',
    'statuses during the phase',
  ];
  const widths = head.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 || column === cells.length - 1 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ')} |`;
  console.log('');
  console.log(line(head));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log('');
  console.log(
    `consistency: ${consistency.passed ? 'PASS' : 'FAIL'} — ${totals.events} events stored, SUM(issues.event_count) ${totals.counted} ` +
      `over ${totals.issues} issues, ${duplicates.size} duplicated ids, ${final.failed} jobs in ${PREFIX}:digest:failed, ` +
      `backlog ${drained ? 'drained' : `NOT drained (${describeBacklog(final)})`}, ${phantoms} stored ids never sent`,
  );
  for (const r of reports) {
    if (r.lostBreakdown) console.log(`  ${r.fault}: lost ${r.lost} — ${r.lostBreakdown}`);
  }
  if (failedReasons.length > 0) console.log(`  failed-set reasons: ${failedReasons.join('; ')}`);
  for (const exit of unexpected) console.log(`  unexpected exit: ${exit}`);
  const sentTotal = load.records.length;
  const ackTotal = load.records.filter((record) => record.outcome === ACK).length;
  console.log(
    `  ${sentTotal} requests, ${ackTotal} acknowledged, all statuses: ${formatOutcomes(countAll(load))}`,
  );

  writeFileSync(
    join(artifacts, 'results.json'),
    `${JSON.stringify({ date: new Date().toISOString(), settings: { PG_OUTAGE_S, RATE, CONNECTIONS, GROUPS, BURST, REDIS_DOWN_S, API_DOWN_S }, reports, consistency, failedReasons, unexpectedExits: unexpected }, null, 2)}\n`,
  );

  const checks = [...reports.map((r) => r.passed), consistency.passed];
  const passed = checks.filter(Boolean).length;
  const failed = checks.length - passed;
  if (failed > 0) printLogTails(state.logFiles);
  console.log(`results and logs: ${artifacts}`);
  console.log(`took ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

function countAll(load: LoadGenerator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const record of load.records) counts.set(record.outcome, (counts.get(record.outcome) ?? 0) + 1);
  return counts;
}

/** Where the lost ids' jobs are now: in the failed set (with reasons), still queued, or gone from Redis. */
async function explainLost(redis: Redis, projectId: number, ids: string[]): Promise<string> {
  const base = `${PREFIX}:digest`;
  const pipeline = redis.pipeline();
  for (const id of ids) {
    const jobId = `${projectId}_${id}`;
    pipeline.zscore(`${base}:failed`, jobId);
    pipeline.hmget(`${base}:${jobId}`, 'failedReason', 'atm');
  }
  const results = (await pipeline.exec()) ?? [];
  let inFailed = 0;
  let present = 0;
  let gone = 0;
  const reasons = new Map<string, number>();
  for (let index = 0; index < ids.length; index++) {
    const score = results[index * 2]?.[1] as string | null;
    const [reason, attempts] = (results[index * 2 + 1]?.[1] as (string | null)[]) ?? [];
    if (score !== null && score !== undefined) {
      inFailed++;
      const key = `${reason ?? '?'} (attempts ${attempts ?? '?'})`;
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    } else if (reason !== null || attempts !== null) present++;
    else gone++;
  }
  const parts = [
    `${inFailed} in the failed set`,
    `${present} jobs still in Redis`,
    `${gone} jobs gone from Redis`,
  ];
  if (reasons.size > 0) parts.push(`reasons: ${formatOutcomes(reasons)}`);
  return parts.join(', ');
}

/** The distinct failure reasons in the failed set (first 5,000 entries), with counts. */
async function failedJobReasons(redis: Redis): Promise<string[]> {
  const base = `${PREFIX}:digest`;
  const jobIds = await redis.zrange(`${base}:failed`, 0, 4_999);
  if (jobIds.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const jobId of jobIds) pipeline.hget(`${base}:${jobId}`, 'failedReason');
  const counts = new Map<string, number>();
  for (const [, reason] of (await pipeline.exec()) ?? []) {
    const key = String(reason ?? '?');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${count}× ${reason}`);
}

/** The end of each log, lines cut at 300 characters, runs of lines differing only in numbers and ids folded. */
function printLogTails(files: string[]): void {
  for (const file of files) {
    const lines = tail(file, 400)
      .split('\n')
      .filter((line) => line.trim() !== '');
    if (lines.length === 0) continue;
    const folded: string[] = [];
    let previous = '';
    let repeats = 0;
    const flush = () => {
      if (repeats > 0) folded.push(`    … ${repeats} more like the line above`);
      repeats = 0;
    };
    for (const line of lines) {
      const shape = line.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|\d+/g, '#');
      if (shape === previous) {
        repeats++;
        continue;
      }
      flush();
      previous = shape;
      folded.push(line.length > 300 ? `${line.slice(0, 300)} …` : line);
    }
    flush();
    const keep = file.endsWith('postgres.log') || file.endsWith('redis.log') ? 12 : 30;
    console.log(`\n---- end of ${file} ----\n${folded.slice(-keep).join('\n')}`);
  }
  console.log('');
}

// -------------------------------------------------------------------------------------------------

const cleanup = new Cleanup();
const state: { load?: LoadGenerator; logFiles: string[] } = { logFiles: [] };
let finishing = false;

async function abort(reason: string, code: number): Promise<never> {
  if (!finishing) {
    finishing = true;
    console.error(`\nchaos suite aborted: ${reason}`);
    state.load?.destroy();
    printLogTails(state.logFiles);
  }
  await cleanup.runAll();
  process.exit(code);
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => void abort(`received ${signal}`, code));
}
process.on('unhandledRejection', (error) => void abort(`unhandled rejection: ${String(error)}`, 1));
const watchdog = setTimeout(
  () => void abort(`still running after CHAOS_TIMEOUT_S=${TIMEOUT_S} s`, 1),
  TIMEOUT_S * 1000,
);

main(cleanup, state).then(
  async (code) => {
    clearTimeout(watchdog);
    finishing = true;
    await cleanup.runAll();
    process.exit(code);
  },
  (error: unknown) => void abort((error as Error)?.stack ?? String(error), 1),
);
