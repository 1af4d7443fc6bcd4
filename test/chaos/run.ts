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
 *      BullMQ's stalled-job check, must not have failed (retention-fault.ts);
 *   5. the api SIGKILLed during sends, then started again;
 *   6. PostgreSQL's data disk full for CHAOS_DISK_FULL_S (40 s), its WAL disk with room, and the
 *      relation cache init files (pg_internal.init) deleted: PostgreSQL stays up but refuses to extend
 *      tables (53100) and refuses every new connection (FATAL "could not write init file", XX000),
 *      long enough for the worker's pool to drop idle connections (10 s) and open new ones while the
 *      digest pauses (up to 15 s); a new connection of the suite's is refused too, as evidence; then
 *      the filler is deleted. It begins right after a CHECKPOINT: one on a full data disk PANICs,
 *      and max_wal_size keeps the next far off;
 *   7. PostgreSQL's WAL disk full (after max_wal_size is lowered to 2MB and a CHECKPOINT, so that few
 *      segments are kept ahead): it PANICs when it needs a new segment (the load's writes, then the
 *      suite's pg_switch_wal() after 5 s, drive it there; at most 60 s), its recovery fails the same
 *      way and it shuts down; it stays down CHAOS_WAL_DOWN_S (10 s), then the filler is deleted, it is
 *      started again and max_wal_size reset;
 *   8. Redis at maxmemory (noeviction) for CHAOS_REDIS_FULL_S (20 s): `CONFIG SET maxmemory` to its
 *      used_memory (lowered again as finished jobs free memory), so every write is answered OOM; then
 *      `CONFIG SET maxmemory 0`.
 * During faults 6-8 the api's readiness (GET /health/ready) is polled every 2 s and what it said is
 * noted; the fault fails when it never noticed: 6 and 8 expect 200 "degraded" (8 with
 * checks.redis_writes "refused"; DIGEST_LAG_DEGRADED_SECONDS is 10 so that a paused digest shows),
 * 7 expects 503 while PostgreSQL is down. That readiness is "ok" again afterwards is only noted.
 * Faults 6 and 7 need small disks: PostgreSQL's data folder and its WAL folder (initdb --waldir, 1 MB
 * segments, min_wal_size 2MB, max_wal_size 64MB) each on a tmpfs the suite mounts (1 GiB and
 * 256 MiB; resource-faults.ts) and unmounts at the end. When it cannot mount (not root, or mount
 * refused; or CHAOS_TMPFS=0), PostgreSQL runs on ordinary folders and both faults are skipped
 * (CHAOS_REQUIRE_DISKS=1, as in CI, makes that an error instead):
 * reported SKIP, neither passed nor failed. Without those two faults selected, no disk is mounted.
 *
 * Then it waits (bounded) for the digest backlog to drain and the rollups to be folded, and checks,
 * per fault and overall: every acknowledged id is in `events` exactly once, no digest job landed in
 * the failed set during the fault, the api answered no 5xx but 503, each issue's `event_count` is its
 * stored events plus those retention removed, the rollups and tag counts agree with the events
 * (counts.ts), and BullMQ's failed sets (digest, maintenance) are empty. Prints a table (with each
 * fault's length in seconds) and `N passed, N failed` (`, N skipped` when some were); exit code 0
 * only when none failed. Logs and results.json go to test-artifacts/chaos/<timestamp>/.
 *
 * Knobs: CHAOS_PHASES (the faults to inject, comma-separated from postgres, worker, redis,
 * retention, api, disk, wal, redis-memory; all by default, always run in that order:
 * `CHAOS_PHASES=retention` runs only the retention fault), CHAOS_RATE (envelopes/s, default 100),
 * CHAOS_FEEDBACK_RATE (feedback envelopes/s beside them, 5, and as many check-in envelopes: check-ins.ts),
 * CHAOS_CONNECTIONS (4), CHAOS_GROUPS (36), CHAOS_BURST (3000), CHAOS_REDIS_DOWN_S (5),
 * CHAOS_API_DOWN_S (2), CHAOS_DISK_FULL_S (40), CHAOS_WAL_DOWN_S (10), CHAOS_REDIS_FULL_S (20),
 * CHAOS_TMPFS=0 (no small disks), CHAOS_DRAIN_TIMEOUT_S (120), CHAOS_TIMEOUT_S (hard stop of the
 * whole run, 600), CHAOS_KEEP_TMP=1 keeps the data folders (and leaves the small disks mounted).
 */
import { execSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { EXCEPTION_FIXTURE, freePort } from '../../bench/support';
import { QueueName } from '../../src/common/queues';
import { openQueue, QueueSettings } from '../../src/jobs/queue-layout';
import { Cleanup } from '../helpers/cleanup';
import { Postgres } from '../helpers/postgres-servers';
import { checkRun, printConsistency } from './consistency';
import { checkFeedback, FeedbackLoad, printFeedbackCheck } from './feedback';
import { CheckInLoad, checkCheckIns, printCheckInCheck } from './check-ins';
import { partitionOf, query } from './db';
import { ACK, formatOutcomes, LoadGenerator } from './load';
import {
  AttachmentLoad,
  checkAttachments,
  createAttachmentProject,
  printAttachmentCheck,
} from './attachments';
import { AppProcess, RedisServer, serviceEnvironment, sleep } from './processes';
import { apiKill, postgresOutage, redisRestart, workerKill } from './process-faults';
import { Backlog, backlog, describeBacklog } from './queue-state';
import { phaseReports, printLogTails, printTable } from './report';
import {
  dataDiskFull,
  mountPostgresDisks,
  PostgresDisks,
  redisMemoryFull,
  walDiskFull,
} from './resource-faults';
import { AgedData, seedAgedDays } from './retention';
import { KilledRun, reportKilledRun, retentionUnderLoad } from './retention-fault';
import { begin, log, PHASE_NAMES, PhaseName, skip, STEADY_PHASE, startedAt, Suite } from './suite';
import { checkSessions, describeSessionCheck, SessionCheck, SessionLoad } from './sessions';

const ROOT = join(__dirname, '../..');
const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};
const PG_OUTAGE_S = num('CHAOS_PG_OUTAGE_S', 140);
const RATE = num('CHAOS_RATE', 100);
/** User feedback envelopes per second, beside the events (see feedback.ts). */
const FEEDBACK_RATE = num('CHAOS_FEEDBACK_RATE', 5);
const CONNECTIONS = Math.max(1, num('CHAOS_CONNECTIONS', 4));
const GROUPS = Math.max(1, num('CHAOS_GROUPS', 36));
const BURST = num('CHAOS_BURST', 3000);
const REDIS_DOWN_S = num('CHAOS_REDIS_DOWN_S', 5);
const API_DOWN_S = num('CHAOS_API_DOWN_S', 2);
const DISK_FULL_S = num('CHAOS_DISK_FULL_S', 40);
const WAL_DOWN_S = num('CHAOS_WAL_DOWN_S', 10);
const REDIS_FULL_S = num('CHAOS_REDIS_FULL_S', 20);
const DRAIN_TIMEOUT_S = num('CHAOS_DRAIN_TIMEOUT_S', 120);
const TIMEOUT_S = num('CHAOS_TIMEOUT_S', 600);
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
const selected = (name: PhaseName) => PHASES.has(name);
const PREFIX = 'chaos';
const DATABASE = 'error_tracker_chaos';
const DEFAULT_RETENTION_DAYS = 90;

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
  const pgBase = join(tmp, 'pg');
  mkdirSync(pgBase);
  const pgLog = join(pgBase, 'postgres.log');
  cleanup.add('remove temporary data', async () => {
    if (existsSync(pgLog)) copyFileSync(pgLog, join(artifacts, 'postgres.log'));
    if (process.env.CHAOS_KEEP_TMP === '1') console.log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  });
  // Small disks for the disk and WAL faults, unmounted after PostgreSQL is stopped.
  let disks: PostgresDisks | undefined;
  let noDisks = '';
  const mounted = selected('disk') || selected('wal') ? await mountPostgresDisks(pgBase, cleanup) : undefined;
  if (mounted && 'disks' in mounted) {
    disks = mounted.disks;
    log(`PostgreSQL's data on a ${disks.data.sizeMb} MB tmpfs, its WAL on a ${disks.wal.sizeMb} MB tmpfs`);
  } else if (mounted) {
    noDisks = mounted.reason;
    // CI runs as root and must inject every fault: a skip there would hide that it did not.
    if (process.env.CHAOS_REQUIRE_DISKS === '1')
      throw new Error(`CHAOS_REQUIRE_DISKS=1 but no small disks: ${noDisks}`);
    log(`no small disks (${noDisks}): the disk and wal faults will be skipped`);
  }
  const pg = new Postgres(pgBase, pgPort, mounted && 'options' in mounted ? mounted.options : {});
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
    // The suite sends bursts far above any project's history: spike protection would refuse them.
    SPIKE_PROTECTION_MIN_PER_HOUR: '1000000000',
    LOG_LEVEL: 'warn',
    SERVE_DASHBOARD: 'false',
    EVENT_RETENTION_DAYS: String(DEFAULT_RETENTION_DAYS),
    // Retention runs when the retention fault enqueues it, not at minute 17 of whatever hour the
    // suite happens to span (in the middle of another fault, or before the aged days are ready).
    RETENTION_SCHEDULE: 'off',
    // A digest paused for the whole data disk fault (40 s) shows in readiness as lag.
    DIGEST_LAG_DEGRADED_SECONDS: '10',
    // The notes quote readiness' reasons, which only the details carry.
    HEALTH_DETAILS: 'public',
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

  const target = {
    url: `${api.url}/api/${projectId}/envelope/`,
    headers: {
      'Content-Type': 'application/x-sentry-envelope',
      'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${clientKey.replace(/-/g, '')}, sentry_client=chaos/1.0`,
    },
  };
  const load = new LoadGenerator({
    ...target,
    fixture: EXCEPTION_FIXTURE,
    groups: GROUPS,
    rate: RATE,
    connections: CONNECTIONS,
  });
  state.load = load;
  cleanup.add('stop load', async () => load.destroy());
  const feedback = new FeedbackLoad({ ...target, rate: FEEDBACK_RATE, events: load });
  cleanup.add('stop feedback load', () => feedback.stop());
  const checkIns = new CheckInLoad({ ...target, rate: FEEDBACK_RATE, events: load });
  cleanup.add('stop check-in load', () => checkIns.stop());
  const attachmentProject = await createAttachmentProject(databaseUrl);
  const attachmentLoad = new AttachmentLoad(
    `${api.url}/api/${attachmentProject.projectId}/envelope/`,
    attachmentProject.clientKey,
    () => load.phase,
  );
  cleanup.add('stop attachment load', async () => attachmentLoad.destroy());

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
  const suite: Suite = {
    cleanup,
    pg,
    databaseUrl,
    redisServer,
    redis,
    queues,
    api,
    worker,
    load,
    projectId,
    phases: [],
  };
  const phases = suite.phases;
  begin(suite, STEADY_PHASE, 'steady load, before the faults');
  load.start();
  // Sessions beside the events, checked after every fault (test/chaos/sessions.ts).
  const sessionLoad = new SessionLoad(`${api.url}/api/${projectId}/envelope/`, {
    'Content-Type': 'application/x-sentry-envelope',
    'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${clientKey.replace(/-/g, '')}, sentry_client=chaos/1.0`,
  });
  sessionLoad.start();
  cleanup.add('stop session load', () => sessionLoad.stop());
  const sessionChecks: SessionCheck[] = [];
  const checkSessionsAfter = async (label: string) => {
    const check = await checkSessions({
      label,
      load: sessionLoad,
      databaseUrl,
      redis,
      prefix: PREFIX,
      projectId,
    }).catch((error: unknown): SessionCheck => ({
      label,
      sent: 0,
      acked: 0,
      lost: 0,
      applied: { sessions: 0, crashed: 0 },
      counted: { sessions: -1, crashed: -1 },
      passed: false,
      error: (error as Error).message,
    }));
    sessionChecks.push(check);
    log(describeSessionCheck(check));
  };
  feedback.start();
  await checkIns.start();
  attachmentLoad.start();

  if (selected('postgres'))
    await postgresOutage(suite, PG_OUTAGE_S).then(() => checkSessionsAfter('postgres'));
  if (selected('worker')) await workerKill(suite, BURST).then(() => checkSessionsAfter('worker'));
  if (selected('redis')) await redisRestart(suite, REDIS_DOWN_S).then(() => checkSessionsAfter('redis'));

  // Retention comes after the Redis fault and before the api fault: the job the kill cuts short comes
  // back through BullMQ's stalled-job check 30 to 90 s later, and neither a Redis restart nor a
  // worker kill may catch it running then (its second stall would fail it). The digest jobs the
  // kill left locked come back meanwhile, during the api fault. The job is looked at again at the end.
  let killedRun: KilledRun | undefined;
  const maintenance = openQueue(queues, QueueName.Maintenance, {
    offlineQueue: true,
    maxRetriesPerRequest: null,
  });
  cleanup.add('close maintenance queue handle', () => maintenance.close());
  if (aged) {
    const phaseStarted = Date.now();
    killedRun = await retentionUnderLoad(suite, aged, maintenance, DEFAULT_RETENTION_DAYS);
    await checkSessionsAfter('retention');
    retentionTimes.phase = Date.now() - phaseStarted;
  }

  if (selected('api')) await apiKill(suite, API_DOWN_S).then(() => checkSessionsAfter('api'));

  // Resource exhaustion: PostgreSQL's disks (which need the small disks), then Redis' memory.
  const diskLabel = `6. PostgreSQL data disk full ${DISK_FULL_S} s`;
  const walLabel = `7. PostgreSQL WAL disk full (PANIC), down ${WAL_DOWN_S} s`;
  if (selected('disk')) {
    if (disks)
      await dataDiskFull(suite, disks, diskLabel, DISK_FULL_S).then(() => checkSessionsAfter('disk'));
    else skip(suite, 'disk', diskLabel, noDisks);
  }
  if (selected('wal')) {
    if (disks) await walDiskFull(suite, disks, walLabel, WAL_DOWN_S).then(() => checkSessionsAfter('wal'));
    else skip(suite, 'wal', walLabel, noDisks);
  }
  if (selected('redis-memory'))
    await redisMemoryFull(suite, REDIS_FULL_S).then(() => checkSessionsAfter('redis-memory'));

  await Promise.all([load.stop(), feedback.stop(), checkIns.stop(), attachmentLoad.stop()]);
  await checkSessionsAfter('the load');
  await sessionLoad.stop();
  load.phase = 'after';
  const loadStoppedAt = Date.now();
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

  if (killedRun) await reportKilledRun(suite, maintenance, killedRun);

  const removed = aged?.removed ?? new Map<number, number>();
  const { consistency, stored, duplicates, final, failedReasons } = await checkRun({
    databaseUrl,
    projectId,
    redis,
    queues,
    maintenance,
    load,
    drained,
    defaultRetentionDays: DEFAULT_RETENTION_DAYS,
    removed,
  });
  const reports = await phaseReports({ phases, load, redis, queues, stored, duplicates, loadStoppedAt });
  const feedbackCheck = await checkFeedback(databaseUrl, projectId, feedback);
  const checkInCheck = await checkCheckIns(databaseUrl, projectId, checkIns);
  const attachmentCheck = await checkAttachments(databaseUrl, attachmentProject.projectId, attachmentLoad);
  const unexpected = [...api.unexpectedExits, ...worker.unexpectedExits];

  // ---------------------------------------------------------------------------------------------
  // Report.
  printTable(reports);
  printConsistency(consistency, queues, final);
  printFeedbackCheck(feedbackCheck);
  printCheckInCheck(checkInCheck);
  printAttachmentCheck(attachmentCheck, attachmentLoad);
  for (const r of reports) {
    if (r.skipped) console.log(`  ${r.fault}: SKIPPED: ${r.skipped}`);
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

  const settings = {
    PHASES: [...PHASES],
    PG_OUTAGE_S,
    RATE,
    CONNECTIONS,
    GROUPS,
    BURST,
    REDIS_DOWN_S,
    API_DOWN_S,
    DISK_FULL_S,
    WAL_DOWN_S,
    REDIS_FULL_S,
    smallDisks: disks ? { dataMb: disks.data.sizeMb, walMb: disks.wal.sizeMb } : noDisks || 'not needed',
  };
  writeFileSync(
    join(artifacts, 'results.json'),
    `${JSON.stringify({ date: new Date().toISOString(), settings, reports, consistency, sessionChecks, attachmentCheck, retentionTimes, failedReasons, unexpectedExits: unexpected }, null, 2)}\n`,
  );

  for (const check of sessionChecks) console.log(`  ${describeSessionCheck(check)}`);
  const checks = [
    ...reports.filter((r) => !r.skipped).map((r) => r.passed),
    consistency.passed,
    feedbackCheck.passed,
    checkInCheck.passed,
    ...sessionChecks.map((check) => check.passed),
    attachmentCheck.passed,
  ];
  const passed = checks.filter(Boolean).length;
  const failed = checks.length - passed;
  const skipped = reports.length - reports.filter((r) => !r.skipped).length;
  if (failed > 0) printLogTails(state.logFiles);
  console.log(`results and logs: ${artifacts}`);
  console.log(`took ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  return failed === 0 ? 0 : 1;
}

function countAll(load: LoadGenerator): Map<string, number> {
  const counts = new Map<string, number>();
  for (const record of load.records) counts.set(record.outcome, (counts.get(record.outcome) ?? 0) + 1);
  return counts;
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
