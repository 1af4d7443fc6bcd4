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
 *   4. retention run under load on days seeded before the load starts (see retention.ts: a day past
 *      every retention, to be dropped, and a day past the load's project's shorter retention, whose
 *      rows of that project are deleted in batches), the worker SIGKILLed while the run is between
 *      two delete batches, started again, and a second run put on the maintenance queue (the schedule
 *      is off, RETENTION_SCHEDULE=off, so runs happen only when the suite asks); then what the runs
 *      left is checked: the expired day gone with its event parts, the batch day rid of that
 *      project's rows only, issues with only expired events deleted and the others kept, the hourly
 *      rollups trimmed, the partitions ahead there; at the end, the cut run's job, given back by
 *      BullMQ's stalled-job check, must not have failed;
 *   5. the api SIGKILLed during sends, then started again.
 *
 * Then it waits (bounded) for the digest backlog to drain and the rollups to be folded, and checks,
 * per fault and overall: every acknowledged id is in `events` exactly once, each issue's
 * `event_count` is its stored events plus those retention removed, the rollups and tag counts agree
 * with the events (counts.ts), and BullMQ's failed sets (digest, maintenance) are empty. Prints a
 * table and `N passed, N failed`; exit code 0 only when all pass. Logs and results.json go to
 * test-artifacts/chaos/<timestamp>/.
 *
 * Knobs: CHAOS_PHASES (the faults to inject, comma-separated from postgres, worker, redis,
 * retention, api; all by default, always run in that order: `CHAOS_PHASES=retention` runs only
 * the retention fault), CHAOS_RATE (envelopes/s, default 100), CHAOS_CONNECTIONS (4), CHAOS_GROUPS
 * (36), CHAOS_BURST (3000), CHAOS_REDIS_DOWN_S (5), CHAOS_API_DOWN_S (2), CHAOS_DRAIN_TIMEOUT_S
 * (120), CHAOS_TIMEOUT_S (hard stop of the whole run, 600), CHAOS_KEEP_TMP=1 keeps the data folders.
 */
import { execSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job, Queue } from 'bullmq';
import Redis from 'ioredis';
import { Client } from 'pg';
import { EXCEPTION_FIXTURE, freePort, pendingRollups } from '../../bench/support';
import { QueueName } from '../../src/common/queues';
import { DigestJobData, eventsOfJob } from '../../src/digest/digest-job';
import { openQueue, queueKey, QueueSettings } from '../../src/jobs/queue-layout';
import { MaintenanceJobName } from '../../src/retention/maintenance.processor';
import type { RetentionReport } from '../../src/retention/retention.service';
import { Cleanup } from '../helpers/cleanup';
import { Postgres } from '../helpers/postgres-servers';
import { checkCounts } from './counts';
import { partitionOf, query } from './db';
import { ACK, formatOutcomes, LoadGenerator } from './load';
import { AppProcess, RedisServer, serviceEnvironment, sleep, tail } from './processes';
import { AgedData, checkRetention, retentionProgress, seedAgedDays } from './retention';

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
const PHASE_NAMES = ['postgres', 'worker', 'redis', 'retention', 'api'] as const;
const PHASES = new Set(
  (process.env.CHAOS_PHASES ?? PHASE_NAMES.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== ''),
);
for (const name of PHASES) {
  if (!(PHASE_NAMES as readonly string[]).includes(name)) {
    throw new Error(`CHAOS_PHASES: unknown phase "${name}" (known: ${PHASE_NAMES.join(', ')})`);
  }
}
const selected = (name: (typeof PHASE_NAMES)[number]) => PHASES.has(name);
const PREFIX = 'chaos';
const DATABASE = 'error_tracker_chaos';
const DEFAULT_RETENTION_DAYS = 90;
const RETENTION_JOB_OPTIONS = { removeOnComplete: 100, removeOnFail: 100 };

const startedAt = Date.now();
const log = (message: string) =>
  console.log(`[+${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${message}`);

interface Phase {
  name: string;
  label: string;
  notes: string[];
  /** Broken promises found during the phase, besides lost or doubled events. */
  failures: string[];
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
  failures: string[];
  passed: boolean;
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

async function backlog(redis: Redis, queues: QueueSettings): Promise<Backlog> {
  const key = (kind: string) => queueKey(queues, QueueName.Digest, kind);
  const results = await redis
    .multi()
    .llen(key('wait'))
    .llen(key('active'))
    .llen(key('paused'))
    .zcard(key('prioritized'))
    .zcard(key('delayed'))
    .zcard(key('failed'))
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
  /** The service's queue settings: where the suite looks at, and adds to, the service's queues. */
  const queues: QueueSettings = { REDIS_URL: redisServer.url, REDIS_CLUSTER: false, REDIS_PREFIX: PREFIX };

  const databaseUrl = pg.url(DATABASE);
  const env = serviceEnvironment({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: queues.REDIS_URL,
    REDIS_PREFIX: queues.REDIS_PREFIX,
    PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
    MAX_EVENTS_PER_MINUTE: '0',
    MAX_EVENTS_PER_HOUR: '0',
    LOG_LEVEL: 'warn',
    SERVE_DASHBOARD: 'false',
    EVENT_RETENTION_DAYS: String(DEFAULT_RETENTION_DAYS),
    // Retention runs when the retention fault enqueues it, not at minute 17 of whatever hour the
    // suite happens to span (in the middle of another fault, or before the aged days are ready).
    RETENTION_SCHEDULE: 'off',
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

  // Aged days for the retention fault, before the load: their issues are there when the live
  // events of the same groups arrive, as a long-lived issue's would be.
  let aged: AgedData | undefined;
  const retentionTimes = { seeding: 0, phase: 0 };
  if (selected('retention')) {
    const seedingStarted = Date.now();
    log('seeding aged days for the retention fault …');
    aged = await seedAgedDays({
      databaseUrl,
      queues,
      liveProjectId: projectId,
      liveGroups: GROUPS,
      defaultRetentionDays: DEFAULT_RETENTION_DAYS,
      log,
    });
    retentionTimes.seeding = Date.now() - seedingStarted;
    log(
      `   ${aged.seeded} events seeded through the digest on ${aged.dropDay} and ${aged.batchDay}; ` +
        `${aged.liveBatchRows} rows of project ${projectId} in ${partitionOf(aged.batchDay)}; ` +
        `${aged.expiringIssues.length} issues with only expired events, ${aged.sharedIssues.length} shared with the load ` +
        `(${(retentionTimes.seeding / 1000).toFixed(1)} s)`,
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Faults, one after the other, under steady load.
  const phases: Phase[] = [];
  const begin = (name: string, label: string): Phase => {
    const phase = { name, label, notes: [], failures: [] };
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

  if (selected('postgres')) {
    const phase = begin('postgres', `1. PostgreSQL down ${PG_OUTAGE_S} s`);
    await sleep(5_000);
    await pg.stop('fast');
    note(phase, 'PostgreSQL stopped (pg_ctl stop -m fast)');
    const until = Date.now() + PG_OUTAGE_S * 1000;
    while (Date.now() < until) {
      await sleep(Math.min(30_000, until - Date.now()));
      const b = await backlog(redis, queues).catch(() => undefined);
      if (Date.now() < until && b) log(`   outage continues; backlog: ${describeBacklog(b)}`);
    }
    await pg.start();
    const b = await backlog(redis, queues).catch(() => undefined);
    note(phase, `PostgreSQL started again; backlog: ${b ? describeBacklog(b) : 'unknown'}`);
    await sleep(5_000);
  }

  if (selected('worker')) {
    const phase = begin('worker', '2. worker SIGKILL mid-batch');
    await sleep(2_000);
    worker.signal('SIGSTOP');
    const pausedAt = Date.now();
    await load.burst(BURST, 16);
    await sleep(Math.max(0, 3_000 - (Date.now() - pausedAt)));
    const before = await backlog(redis, queues);
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
        const active = await redis.llen(queueKey(queues, QueueName.Digest, 'active'));
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
    const after = await backlog(redis, queues);
    note(
      phase,
      `worker SIGKILLed ${Date.now() - pausedAt} ms after the pause: ${evidence || 'NO evidence of a batch in progress'}; backlog: ${describeBacklog(after)}`,
    );
    await sleep(2_000);
    await worker.start();
    note(phase, 'worker started again');
    await sleep(5_000);
  }

  if (selected('redis')) {
    const phase = begin('redis', `3. Redis restart (down ${REDIS_DOWN_S} s)`);
    await sleep(5_000);
    const before = await backlog(redis, queues);
    await redisServer.shutdown();
    note(phase, `Redis shut down (SHUTDOWN, AOF flushed); backlog before: ${describeBacklog(before)}`);
    await sleep(REDIS_DOWN_S * 1000);
    await redisServer.start();
    await sleep(500);
    const after = await backlog(redis, queues).catch(() => undefined);
    note(phase, `Redis started again from its AOF; backlog: ${after ? describeBacklog(after) : 'unknown'}`);
    await sleep(10_000);
  }

  // Retention comes after the Redis fault and before the api fault: the job the kill cuts short comes
  // back through BullMQ's stalled-job check 30 to 90 s later, and neither a Redis restart nor a
  // worker kill may catch it running then (its second stall would fail it). The digest jobs the
  // kill left locked come back meanwhile, during the api fault. The job is looked at again at the end.
  let killedRun: { job: Job; killedAt: number; phase: Phase; logOffset: number } | undefined;
  const maintenance = openQueue(queues, QueueName.Maintenance, {
    offlineQueue: true,
    maxRetriesPerRequest: null,
  });
  cleanup.add('close maintenance queue handle', () => maintenance.close());
  if (aged) {
    const phaseStarted = Date.now();
    const phase = begin('retention', '4. retention under load, worker SIGKILL mid-run');
    const logOffset = statSync(pg.logFile).size;
    await sleep(3_000);
    const first = await maintenance.add(MaintenanceJobName.Retention, {}, RETENTION_JOB_OPTIONS);
    const enqueuedAt = Date.now();
    // Killed between two commits of the batch day's deletes: some of the live project's rows gone,
    // some left. The expired day (an earlier partition) is dropped before those batches start.
    let evidence = '';
    const deadline = Date.now() + 30_000;
    const monitor = new Client({ connectionString: databaseUrl });
    await monitor.connect();
    try {
      while (Date.now() < deadline) {
        const [{ n }] = (
          await monitor.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM ${partitionOf(aged.batchDay)} WHERE project_id = $1`,
            [projectId],
          )
        ).rows;
        if (n > 0 && n < aged.liveBatchRows) {
          evidence = `${aged.liveBatchRows - n} of ${aged.liveBatchRows} rows of the batch day deleted, ${n} left`;
          break;
        }
        const state = await first.getState();
        if (n === 0 || state === 'completed' || state === 'failed') break;
        await sleep(2);
      }
    } finally {
      await monitor.end().catch(() => undefined);
    }
    await worker.kill();
    const killedAt = Date.now();
    const cut = await retentionProgress(databaseUrl, aged, projectId);
    const stateAfterKill = await first.getState();
    note(
      phase,
      `worker SIGKILLed ${killedAt - enqueuedAt} ms after retention was enqueued: ${evidence || 'NO evidence of a run in progress'}; ` +
        `its job is ${stateAfterKill}`,
    );
    note(
      phase,
      `left by the cut run: ${aged.dropDay} ${cut.dropEvents ? 'still there' : 'dropped'} (event parts ${cut.dropParts ? 'still there' : 'dropped'}), ` +
        `${cut.liveBatchRows} of ${aged.liveBatchRows} rows of the batch day, ` +
        `${cut.issuesLeft} of ${aged.expiringIssues.length} issues with only expired events`,
    );
    if (cut.dropEvents !== cut.dropParts) {
      phase.failures.push(
        `the cut run left ${aged.dropDay} half dropped (events ${cut.dropEvents}, event parts ${cut.dropParts})`,
      );
    }
    killedRun = { job: first, killedAt, phase, logOffset };
    await sleep(1_000);
    await worker.start();
    note(phase, 'worker started again; retention enqueued again');
    const second = await maintenance.add(MaintenanceJobName.Retention, {}, RETENTION_JOB_OPTIONS);
    const outcome = await jobOutcome(maintenance, second.id!, Date.now() + 60_000);
    if (outcome.state !== 'completed' || !outcome.finishedAt) {
      phase.failures.push(
        `the second retention run did not complete within 60 s: ${outcome.state} ${outcome.reason ?? ''}`,
      );
    } else {
      const report = outcome.report!;
      note(phase, `the second run found and did: ${describeRetention(report)}`);
      if (report.partitionsPostponed.length > 0) {
        phase.failures.push(`the second run postponed ${report.partitionsPostponed.join(', ')} (lock busy)`);
      }
      const checked = await checkRetention(
        databaseUrl,
        aged,
        projectId,
        DEFAULT_RETENTION_DAYS,
        outcome.startedAt!,
      );
      for (const fact of checked.facts) note(phase, fact);
      phase.failures.push(...checked.failures);
    }
    for (const failure of phase.failures) log(`   FAILED: ${failure}`);
    await sleep(3_000);
    retentionTimes.phase = Date.now() - phaseStarted;
  }

  if (selected('api')) {
    const phase = begin('api', `5. api SIGKILL (down ${API_DOWN_S} s)`);
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
    last = await backlog(redis, queues).catch(() => last);
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

  // The retention job the kill cut short is given back by BullMQ's stalled-job check 30 to 90 s after
  // the kill. It is not waited for (that would cost the run up to a minute): when it runs, it finds
  // nothing left to do, and its lone run cannot stall twice, which alone would fail it. What became
  // of it so far is reported.
  if (killedRun) {
    const outcome = await jobOutcome(maintenance, killedRun.job.id!, Date.now());
    const finishedAt = outcome.finishedAt ?? Date.now();
    const before = finishedAt < killedRun.killedAt;
    const when = before
      ? 'before the kill'
      : `${((finishedAt - killedRun.killedAt) / 1000).toFixed(0)} s after the kill`;
    if (outcome.state === 'failed') {
      killedRun.phase.failures.push(`the first run's job failed ${when}: ${outcome.reason}`);
    } else if (outcome.state === 'completed' && before) {
      note(killedRun.phase, 'the first run had completed before the kill: the kill cut nothing short');
    } else if (outcome.state === 'completed') {
      note(
        killedRun.phase,
        `the cut run's job came back through the stalled-job check and completed ${when}: ${describeRetention(outcome.report!)}`,
      );
    } else {
      note(killedRun.phase, `the cut run's job is ${outcome.state} ${when}`);
    }
    // The digest retries a deadlock at once (DigestService: normal under load), so one is only
    // reported here; one that makes a retention run fail shows as that run's failed job.
    for (const deadlock of deadlocksLogged(pg.logFile, killedRun.logOffset)) {
      note(killedRun.phase, `PostgreSQL: ${deadlock}`);
    }
  }

  // Recorded rollup shares are folded right after a batch, and what a killed worker left within 10 s.
  // Rows set aside as unfoldable are not waited for, but they are counts the rollups lack: what is
  // checked is every row left, waiting or set aside.
  let pending = -1;
  const folds = new Client({ connectionString: databaseUrl });
  await folds.connect();
  try {
    for (const pendingDeadline = Date.now() + 30_000; ; await sleep(250)) {
      if ((await pendingRollups(folds)) === 0 || Date.now() > pendingDeadline) break;
    }
    [{ n: pending }] = (
      await folds.query<{ n: number }>('SELECT count(*)::int AS n FROM rollup_pending')
    ).rows;
  } finally {
    await folds.end().catch(() => undefined);
  }
  if (pending !== 0) log(`rollup_pending NOT folded within 30 s: ${pending} rows`);

  // ---------------------------------------------------------------------------------------------
  // Checks.
  // Arrived during this run: the aged days' events are neither the load's nor phantoms.
  const storedRows = await query<{ id: string }>(
    databaseUrl,
    'SELECT id::text AS id FROM events WHERE project_id = $1 AND received_at >= $2',
    [projectId, new Date(startedAt)],
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
  const removed = aged?.removed ?? new Map<number, number>();
  const [totals] = await query<{ events: number; counted: number; issues: number; removed: number }>(
    databaseUrl,
    `SELECT (SELECT count(*)::int FROM events WHERE project_id = $1) AS events,
            (SELECT coalesce(sum(event_count), 0)::int FROM issues WHERE project_id = $1) AS counted,
            (SELECT count(*)::int FROM issues WHERE project_id = $1) AS issues,
            (SELECT coalesce(sum(r.n), 0)::int FROM unnest($2::int[], $3::int[]) AS r(id, n)
               JOIN issues i ON i.id = r.id WHERE i.project_id = $1) AS removed`,
    [projectId, [...removed.keys()], [...removed.values()]],
  );
  const countChecks = await checkCounts(databaseUrl, DEFAULT_RETENTION_DAYS, removed);
  const final = await backlog(redis, queues);
  const maintenanceFailed = await maintenance.getFailedCount();
  const failedReasons = await failedJobReasons(redis, queues);
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
      lostBreakdown: lostIds.length > 0 ? await explainLost(queues, lostIds) : '',
      notes: phase.notes,
      failures: phase.failures,
      passed: acked.length > 0 && lostIds.length === 0 && duplicated === 0 && phase.failures.length === 0,
    };
    if (acked.length === 0) report.notes.push('nothing was acknowledged: the phase proves nothing');
    reports.push(report);
  }
  const unexpected = [...api.unexpectedExits, ...worker.unexpectedExits];
  const consistency = {
    events: totals.events,
    eventCountSum: totals.counted,
    removedByRetention: totals.removed,
    issues: totals.issues,
    duplicateIds: duplicates.size,
    failedJobs: final.failed,
    maintenanceFailedJobs: maintenanceFailed,
    backlogLeft: final.total,
    drained,
    rollupPending: pending,
    countChecks,
    phantoms,
    passed:
      countChecks.every((c) => c.mismatched === 0) &&
      pending === 0 &&
      duplicates.size === 0 &&
      final.failed === 0 &&
      maintenanceFailed === 0 &&
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
      `(${totals.removed} of them removed by retention) over ${totals.issues} issues, ${duplicates.size} duplicated ids, ` +
      `${final.failed} jobs in ${queueKey(queues, QueueName.Digest, 'failed')}, ` +
      `${maintenanceFailed} in ${queueKey(queues, QueueName.Maintenance, 'failed')}, ` +
      `backlog ${drained ? 'drained' : `NOT drained (${describeBacklog(final)})`}, rollup_pending ${pending}, ` +
      `${phantoms} stored ids never sent`,
  );
  for (const c of countChecks) {
    console.log(
      `  ${c.mismatched === 0 ? 'ok  ' : 'FAIL'} ${c.name}: ${c.compared} rows compared, ${c.mismatched} differ` +
        (c.sample.length > 0 ? `, e.g. ${c.sample.join(' ')}` : ''),
    );
  }
  for (const r of reports) {
    if (r.lostBreakdown) console.log(`  ${r.fault}: lost ${r.lost} — ${r.lostBreakdown}`);
    for (const failure of r.failures) console.log(`  ${r.fault}: FAILED: ${failure}`);
  }
  if (aged) {
    console.log(
      `  retention fault: seeding ${(retentionTimes.seeding / 1000).toFixed(1)} s, phase ${(retentionTimes.phase / 1000).toFixed(1)} s`,
    );
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
    `${JSON.stringify({ date: new Date().toISOString(), settings: { PHASES: [...PHASES], PG_OUTAGE_S, RATE, CONNECTIONS, GROUPS, BURST, REDIS_DOWN_S, API_DOWN_S }, reports, consistency, retentionTimes, failedReasons, unexpectedExits: unexpected }, null, 2)}\n`,
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

interface JobOutcome {
  state: string;
  report?: RetentionReport;
  reason?: string;
  startedAt?: number;
  finishedAt?: number;
}

/** Polls a job until it is completed or failed, or `until` (epoch ms) has passed. */
async function jobOutcome(queue: Queue, id: string, until: number): Promise<JobOutcome> {
  for (;;) {
    const job = await Job.fromId<unknown, RetentionReport>(queue, id);
    const state = job ? await job.getState() : 'missing';
    if (state === 'completed' || state === 'failed' || state === 'missing' || Date.now() > until) {
      return {
        state,
        report: job?.returnvalue ?? undefined,
        reason: job?.failedReason,
        startedAt: job?.processedOn,
        finishedAt: job?.finishedOn,
      };
    }
    await sleep(250);
  }
}

/** PostgreSQL's deadlock reports in its log from `offset` on, each with the statements it names. */
function deadlocksLogged(file: string, offset: number): string[] {
  const lines = readFileSync(file).subarray(offset).toString('utf8').split('\n');
  const found: string[] = [];
  lines.forEach((line, index) => {
    if (!line.includes('ERROR:  deadlock detected')) return;
    const detail: string[] = [];
    for (const next of lines.slice(index + 1, index + 40)) {
      if (/^\S.*(HINT|STATEMENT|LOG|ERROR):/.test(next)) break;
      detail.push(next.replace(/^.*DETAIL:\s*/, '').trim());
    }
    found.push(`deadlock detected: ${detail.join(' ').replace(/\s+/g, ' ').slice(0, 600)}`);
  });
  return found;
}

function describeRetention(report: RetentionReport): string {
  return (
    `${report.partitionsCreated} partitions created, dropped [${report.partitionsDropped.join(', ')}], ` +
    `postponed [${report.partitionsPostponed.join(', ')}], ${report.eventsDeleted} events, ` +
    `${report.hourlyRowsDeleted} hourly rows, ${report.issuesDeleted} issues deleted`
  );
}

function countAll(load: LoadGenerator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const record of load.records) counts.set(record.outcome, (counts.get(record.outcome) ?? 0) + 1);
  return counts;
}

/**
 * Where the lost ids are now: in a job of the failed set (with its reason), in a job still queued,
 * or in no job Redis holds. Jobs are read whole, since an event may share its job with others.
 */
async function explainLost(queues: QueueSettings, ids: string[]): Promise<string> {
  const queue = openQueue(queues, QueueName.Digest, { offlineQueue: true });
  try {
    const lost = new Set(ids);
    const place = new Map<string, string>();
    const reasons = new Map<string, number>();
    for (const state of ['failed', 'waiting', 'active', 'delayed', 'prioritized', 'paused'] as const) {
      const jobs: Job<DigestJobData>[] = await queue.getJobs([state], 0, 49_999);
      for (const job of jobs) {
        for (const event of eventsOfJob(job.data ?? { events: [] })) {
          if (!lost.has(event.eventId) || place.has(event.eventId)) continue;
          place.set(event.eventId, state);
          if (state === 'failed') {
            const key = `${job.failedReason ?? '?'} (attempts ${job.attemptsMade})`;
            reasons.set(key, (reasons.get(key) ?? 0) + 1);
          }
        }
      }
    }
    const inFailed = [...place.values()].filter((state) => state === 'failed').length;
    const parts = [
      `${inFailed} in the failed set`,
      `${place.size - inFailed} in jobs still queued`,
      `${ids.length - place.size} in no job Redis holds`,
    ];
    if (reasons.size > 0) parts.push(`reasons: ${formatOutcomes(reasons)}`);
    return parts.join(', ');
  } finally {
    await queue.close();
  }
}

/** The distinct failure reasons in the failed set (first 5,000 entries), with counts. */
async function failedJobReasons(redis: Redis, queues: QueueSettings): Promise<string[]> {
  const digestKey = (kind: string) => queueKey(queues, QueueName.Digest, kind);
  const jobIds = await redis.zrange(digestKey('failed'), 0, 4_999);
  if (jobIds.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const jobId of jobIds) pipeline.hget(digestKey(jobId), 'failedReason');
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
