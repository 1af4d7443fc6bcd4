/**
 * Digest benchmark: `npm run bench:digest` (BENCH_SKIP_BUILD=1 to reuse dist/). Measures how fast ONE
 * worker process (`node dist/main.js`, APP_ROLE=worker) drains a pre-filled digest queue into
 * PostgreSQL:
 *
 *   1. a bench database of its own (`error_tracker_bench_digest`, dropped and migrated like
 *      production) with one project;
 *   2. BENCH_EVENTS (default 50,000) events on a fresh Redis prefix, in BENCH_GROUPS (default 200)
 *      groups: the @sentry/node 10 exception fixture with the exception type and the crashing
 *      function varied per group and a distinct event id per event, queued exactly as the ingest
 *      producer queues them under load (digestJobs: BENCH_EVENTS_PER_JOB, default 10, per job; same
 *      job names and options), with `addBulk` in chunks of 1,000 events;
 *   3. the worker is started (DIGEST_CONCURRENCY from its config, or BENCH_DIGEST_CONCURRENCY) and
 *      the queue's job counts are polled until nothing is waiting, active or delayed;
 *   4. the result is verified: one event row per event, one issue per group, every issue counting
 *      events/groups events, no failed job;
 *   5. the reference, once the worker has stopped: PostgreSQL storing the same events by itself.
 *      Each job's payload is normalised and grouped by the digest's own code and serialised ahead of
 *      time as the full stored payload (`storedPayload`: the normalised event with its grouping);
 *      the rows (uuid primary key, int issue column with a btree index, jsonb payload) go into a
 *      scratch table of the bench database, dropped afterwards, as one multi-row INSERT … unnest per
 *      transaction of REFERENCE_BATCH rows, with the parameters already in PostgreSQL's array text
 *      form: what is timed is PostgreSQL's work (and the loopback), not JavaScript's. The digest's
 *      rate is printed as a ratio to it: the digest does more per event (its tables' indexes and
 *      keys, the issues' counters, the queue's bookkeeping in Redis), so the ratio says how much of
 *      the database's plain insert capacity it reaches.
 *
 *   6. what scrubbing costs: the worker's CPU per event with scrubbing off and on (the default), the
 *      same events with a login request added, drained by fresh workers in alternating rounds, the
 *      medians compared (bench/digest-scrubbing.ts; BENCH_SCRUB_PAIRS pairs of rounds, default 3,
 *      of BENCH_SCRUB_EVENTS events, default 10,000; 0 skips it).
 *
 * BENCH_SOURCEMAP=1 makes the events browser events of a minified app (esbuild, about 2 MB of source
 * map, stored as sentry-cli uploads it) thrown at a different place per group, with the map's debug
 * id: every event's frame is resolved through the map (warm in the worker's cache after the first),
 * and the result is verified to hold the original function.
 *
 * The drain rate is measured from the first job leaving the queue to the last one done (the worker's
 * boot is reported separately). Peak RSS is the worker's VmHWM from /proc/<pid>/status.
 * BENCH_CPU_PROF=1 writes a V8 CPU profile of the worker to bench/results/profiles/.
 * Prints a table and writes bench/results/digest.json.
 */
import { execSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import {
  backendCpuMs,
  backendCpuSpentMs,
  benchDatabase,
  deleteKeys,
  EXCEPTION_FIXTURE,
  fixtureEventOfGroup,
  REDIS_URL,
  ROOT,
} from './support';
import { drainWithWorker, fillDigestQueue } from './digest-worker';
import { compareScrubbing, ScrubbingComparison } from './digest-scrubbing';
import { QueueName } from '../src/common/queues';
import type { QueuedEvent } from '../src/digest/digest-job';
import { normaliseEvent, parseEventPayload } from '../src/digest/event-normaliser';
import { groupEvent } from '../src/digest/grouping';
import { storedPayload } from '../src/events/event-payload';
import { openQueue } from '../src/jobs/queue-layout';
import { buildSourceMapFixture, SourceMapFixture, storeSourceMapFixture } from './sourcemap-fixture';

const FIXTURE = EXCEPTION_FIXTURE;
const DATABASE_NAME = 'error_tracker_bench_digest';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 200);
const CONCURRENCY = process.env.BENCH_DIGEST_CONCURRENCY;
/**
 * Events per queue job, as ingest shares jobs among concurrent requests (DigestProducer): under
 * bench:ingest's saturating load every job it wrote held 10 events, the most a job holds; what an
 * installation's ingest writes is `error_tracker_digest_jobs_enqueued_total` beside
 * `error_tracker_ingest_events_accepted_total` in /metrics. BENCH_EVENTS_PER_JOB=1 measures a
 * backlog queued at a low rate, one event per job.
 */
const EVENTS_PER_JOB = Number(process.env.BENCH_EVENTS_PER_JOB ?? 10);
const SOURCEMAP = process.env.BENCH_SOURCEMAP === '1';
/** Events per round of the scrubbing comparison (step 6); 0 skips it. */
const SCRUB_EVENTS = Number(process.env.BENCH_SCRUB_EVENTS ?? 10_000);
/** Pairs of rounds (off and on) of the scrubbing comparison. */
const SCRUB_PAIRS = Number(process.env.BENCH_SCRUB_PAIRS ?? 3);
const RUN_ID = randomUUID().slice(0, 8);
/** Rows per transaction of the reference: the digest's largest batch at its default concurrency. */
const REFERENCE_BATCH = 100;
/**
 * One connection by default: one backend inserting back to back, the plainest figure and the one
 * least moved by whatever else shares the machine's cores (BENCH_REFERENCE_CONNECTIONS to change).
 */
const REFERENCE_CONNECTIONS = Number(process.env.BENCH_REFERENCE_CONNECTIONS ?? 1);
const REFERENCE_TABLE = 'bench_reference_events';

/** The fixture's event in group `group`, with the given id and timestamp. */
function payloadOf(group: number, eventId: string, timestamp: number, sourceMap?: SourceMapFixture): string {
  const event = fixtureEventOfGroup('Bench', group);
  event.event_id = eventId.replace(/-/g, '');
  event.timestamp = timestamp / 1000;
  if (sourceMap) {
    // A browser event from the minified app: its frames there, and the map's debug id.
    const at = sourceMap.throwAt[group];
    const frame = {
      abs_path: sourceMap.url,
      filename: sourceMap.url,
      function: 'r',
      lineno: at.line,
      colno: at.column,
      in_app: true,
    };
    Object.assign(event as unknown as Record<string, unknown>, {
      platform: 'javascript',
      debug_meta: { images: [{ type: 'sourcemap', code_file: sourceMap.url, debug_id: sourceMap.debugId }] },
    });
    event.exception.values[0].stacktrace.frames = [frame] as never;
  }
  return JSON.stringify(event);
}

/** The payload column the digest writes for this job: normalised, grouped, serialised by its own code. */
function storedPayloadText(job: QueuedEvent): string {
  const event = normaliseEvent(parseEventPayload(job.payload), {
    eventId: job.eventId,
    receivedAt: job.receivedAt,
    sdk: job.sdk,
  });
  return JSON.stringify(storedPayload(event, groupEvent(event)));
}

/** An array in PostgreSQL's text form, every element quoted (what node-pg would send for a JS array). */
function arrayLiteral(values: (string | number)[]): string {
  return `{${values.map((value) => `"${String(value).replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

interface ReferenceResult {
  rows: number;
  seconds: number;
  rowsPerS: number;
  payloadBytesAvg: number;
  /** CPU time of PostgreSQL's backends per row, in µs. */
  postgresCpuUsPerRow: number;
}

/**
 * PostgreSQL inserting the digest's payloads by itself (see step 5 above). The parameters of every
 * transaction are prepared before the clock starts; each connection takes the next batch until none
 * is left, each batch one INSERT in its own transaction. `monitor`, a connection to the bench database
 * that is not one of the reference's, reads the backends' CPU: with the worker gone, the backends it
 * sees besides its own are the reference's (and an autovacuum worker's, should one run meanwhile).
 */
async function referenceInsert(
  monitor: Client,
  databaseUrl: string,
  jobs: QueuedEvent[],
  groupOf: number[],
): Promise<ReferenceResult> {
  const batches: [string, string, string][] = [];
  let payloadBytes = 0;
  for (let start = 0; start < jobs.length; start += REFERENCE_BATCH) {
    const slice = jobs.slice(start, start + REFERENCE_BATCH);
    const payloads = slice.map(storedPayloadText);
    for (const payload of payloads) payloadBytes += Buffer.byteLength(payload);
    batches.push([
      arrayLiteral(slice.map((job) => job.eventId)),
      arrayLiteral(groupOf.slice(start, start + REFERENCE_BATCH)),
      arrayLiteral(payloads),
    ]);
  }
  const clients = Array.from(
    { length: REFERENCE_CONNECTIONS },
    () => new Client({ connectionString: databaseUrl }),
  );
  await Promise.all(clients.map((client) => client.connect()));
  try {
    await clients[0].query(`DROP TABLE IF EXISTS ${REFERENCE_TABLE}`);
    await clients[0].query(
      `CREATE TABLE ${REFERENCE_TABLE} (id uuid PRIMARY KEY, issue int NOT NULL, payload jsonb NOT NULL)`,
    );
    await clients[0].query(`CREATE INDEX ${REFERENCE_TABLE}_issue_idx ON ${REFERENCE_TABLE} (issue)`);
    const insert = `INSERT INTO ${REFERENCE_TABLE} (id, issue, payload)
                    SELECT * FROM unnest($1::uuid[], $2::int[], $3::jsonb[])`;
    let next = 0;
    const cpuBefore = await backendCpuMs(monitor, DATABASE_NAME);
    const started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        while (next < batches.length) await client.query(insert, batches[next++]);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuSpent = backendCpuSpentMs(cpuBefore, await backendCpuMs(monitor, DATABASE_NAME));
    const [{ count }] = (
      await clients[0].query<{ count: number }>(`SELECT count(*)::int AS count FROM ${REFERENCE_TABLE}`)
    ).rows;
    if (count !== jobs.length) throw new Error(`reference: expected ${jobs.length} rows, found ${count}`);
    return {
      rows: count,
      seconds: round(seconds),
      rowsPerS: Math.round(count / seconds),
      payloadBytesAvg: Math.round(payloadBytes / jobs.length),
      postgresCpuUsPerRow: Math.round((cpuSpent * 1000) / count),
    };
  } finally {
    await clients[0].query(`DROP TABLE IF EXISTS ${REFERENCE_TABLE}`);
    await Promise.all(clients.map((client) => client.end()));
  }
}

async function main(): Promise<void> {
  if (EVENTS % GROUPS !== 0) throw new Error('BENCH_EVENTS must be a multiple of BENCH_GROUPS');
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    console.log('building (nest build) …');
    execSync('npx nest build', { cwd: ROOT, stdio: 'inherit' });
  }

  // 1. A fresh bench database, migrated like production, with one project.
  const databaseUrl = new URL(await benchDatabase(DATABASE_NAME, { fresh: true }));
  const pg = new Client({ connectionString: databaseUrl.toString() });
  await pg.connect();
  const { rows } = await pg.query<{ id: number }>(
    'INSERT INTO projects (name, slug, client_key) VALUES ($1, $1, $2) RETURNING id',
    [`bench-${RUN_ID}`, randomUUID()],
  );
  const projectId = rows[0].id;
  let sourceMap: SourceMapFixture | undefined;
  if (SOURCEMAP) {
    const fixture = await buildSourceMapFixture(GROUPS);
    await storeSourceMapFixture(pg, projectId, fixture);
    sourceMap = fixture;
    console.log(`source map: ${Math.round(fixture.mapBytes / 1024)} KiB, debug id ${fixture.debugId}`);
  }

  // 2. Pre-fill the digest queue.
  const prefix = `bench-digest-${RUN_ID}`;
  const redis = new Redis(REDIS_URL);
  const queue = openQueue({ REDIS_URL, REDIS_CLUSTER: false, REDIS_PREFIX: prefix }, QueueName.Digest, {
    offlineQueue: true,
  });
  const sdk = (JSON.parse(readFileSync(FIXTURE, 'utf8').split('\n')[0]) as { sdk?: QueuedEvent['sdk'] }).sdk;
  console.log(`queueing ${EVENTS} digest jobs in ${GROUPS} groups (prefix ${prefix}) …`);
  const fillStarted = performance.now();
  const baseTime = Date.now() - EVENTS; // one millisecond apart, all in the past
  const queuedJobs: QueuedEvent[] = [];
  const groupOfJob: number[] = [];
  for (let index = 0; index < EVENTS; index++) {
    const eventId = randomUUID();
    const receivedAt = baseTime + index;
    queuedJobs.push({
      projectId,
      eventId,
      receivedAt,
      payload: payloadOf(index % GROUPS, eventId, receivedAt, sourceMap),
      ...(sdk ? { sdk } : {}),
    });
    groupOfJob.push(index % GROUPS);
  }
  const jobCount = await fillDigestQueue(queue, queuedJobs, EVENTS_PER_JOB);
  const fillS = (performance.now() - fillStarted) / 1000;
  const queued = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
  if (queued.waiting !== jobCount)
    throw new Error(`expected ${jobCount} waiting jobs, found ${JSON.stringify(queued)}`);
  const redisMemory = /used_memory:(\d+)/.exec(await redis.info('memory'))?.[1];

  // 3. One worker process.
  const drain = await drainWithWorker({
    pg,
    databaseName: DATABASE_NAME,
    databaseUrl: databaseUrl.toString(),
    redis,
    queue,
    prefix,
    jobCount,
    concurrency: CONCURRENCY,
    profileName: process.env.BENCH_CPU_PROF === '1' ? `digest-worker-${RUN_ID}.cpuprofile` : undefined,
  });
  const { cpuSpent, peakRssMb, failed, samples } = drain;

  // 4. Verification.
  const [events] = (
    await pg.query<{ count: number }>('SELECT count(*)::int AS count FROM events WHERE project_id = $1', [
      projectId,
    ])
  ).rows;
  const [issues] = (
    await pg.query<{ count: number; min: number; max: number; sum: number; numbers: number }>(
      `SELECT count(*)::int AS count, min(event_count)::int AS min, max(event_count)::int AS max,
              sum(event_count)::int AS sum, count(DISTINCT number)::int AS numbers
         FROM issues WHERE project_id = $1`,
      [projectId],
    )
  ).rows;
  const perIssue = EVENTS / GROUPS;
  const verification = {
    eventRows: { expected: EVENTS, actual: events.count, ok: events.count === EVENTS },
    issues: { expected: GROUPS, actual: issues.count, ok: issues.count === GROUPS },
    eventCountPerIssue: {
      expected: perIssue,
      min: issues.min,
      max: issues.max,
      ok: issues.min === perIssue && issues.max === perIssue,
    },
    distinctIssueNumbers: { expected: GROUPS, actual: issues.numbers, ok: issues.numbers === GROUPS },
    failedJobs: { expected: 0, actual: failed, ok: failed === 0 },
    ...(sourceMap ? { symbolicated: await symbolicatedSample(pg, projectId, sourceMap) } : {}),
  };

  await queue.close();
  await deleteKeys(redis, `${prefix}:*`);

  // 6. What scrubbing costs the worker (before the reference: the comparison starts workers of its own).
  let scrubbing: ScrubbingComparison | null = null;
  if (SCRUB_EVENTS > 0) {
    scrubbing = await compareScrubbing({
      pg,
      databaseName: DATABASE_NAME,
      databaseUrl: databaseUrl.toString(),
      redis,
      events: SCRUB_EVENTS,
      groups: GROUPS,
      eventsPerJob: EVENTS_PER_JOB,
      concurrency: CONCURRENCY,
      sdk,
      pairs: SCRUB_PAIRS,
    });
  }
  redis.disconnect();

  // 5. The reference, with the worker gone.
  console.log(
    `reference: ${EVENTS} rows into ${REFERENCE_TABLE}, ${REFERENCE_BATCH} per transaction, ` +
      `${REFERENCE_CONNECTIONS} connection(s) …`,
  );
  const reference = await referenceInsert(pg, databaseUrl.toString(), queuedJobs, groupOfJob);
  await pg.end();

  const drainS = drain.drainS;
  const bootS = drain.bootS;
  const eventsPerS = Math.round(EVENTS / drainS);
  const ratioToReference = Math.round((eventsPerS / reference.rowsPerS) * 100) / 100;
  const perEvent = (ms: number) => Math.round((ms * 1000) / EVENTS);
  const cpuUsPerEvent = {
    worker: perEvent(cpuSpent.worker),
    postgres: perEvent(cpuSpent.postgres),
    redis: perEvent(cpuSpent.redis),
  };
  const targets = {
    throughput: eventsPerS >= 2_000,
    peakRss: peakRssMb <= 300,
    ...(scrubbing ? { scrubbingCost: scrubbing.ratio <= 1.1 } : {}),
  };
  const allVerified = Object.values(verification).every((check) => check.ok);
  const results = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    settings: {
      events: EVENTS,
      groups: GROUPS,
      digestConcurrency: CONCURRENCY ? Number(CONCURRENCY) : 'config default',
      fixture: 'exception-event.envelope',
      eventsPerJob: EVENTS_PER_JOB,
      cpuProfile: process.env.BENCH_CPU_PROF === '1',
      sourceMapBytes: sourceMap?.mapBytes ?? null,
    },
    fill: {
      seconds: round(fillS),
      jobs: jobCount,
      eventsPerS: Math.round(EVENTS / fillS),
      redisUsedMemoryMb: redisMemory ? Math.round(Number(redisMemory) / 2 ** 20) : null,
    },
    worker: { bootS: round(bootS), drainS: round(drainS), eventsPerS, peakRssMb: Math.round(peakRssMb) },
    cpuUsPerEvent,
    reference: {
      description:
        'PostgreSQL alone: the same stored payloads as jsonb rows (uuid primary key, btree on an int issue column), one multi-row INSERT per transaction',
      table: REFERENCE_TABLE,
      rowsPerTransaction: REFERENCE_BATCH,
      connections: REFERENCE_CONNECTIONS,
      ...reference,
    },
    ratioToReference,
    scrubbing,
    progress: thin(samples, 40),
    verification,
    verified: allVerified,
    targets,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/digest.json'), `${JSON.stringify(results, null, 2)}\n`);

  const line = (name: string, value: string) => `| ${name.padEnd(40)} | ${value.padStart(16)} |`;
  console.log('');
  console.log(`| ${'digest, one worker process'.padEnd(40)} | ${'value'.padStart(16)} |`);
  console.log(`|${'-'.repeat(42)}|${'-'.repeat(18)}|`);
  console.log(line('events / groups', `${EVENTS} / ${GROUPS}`));
  console.log(line('events per queue job', `${EVENTS_PER_JOB}`));
  if (sourceMap)
    console.log(line('source map (every event resolved)', `${Math.round(sourceMap.mapBytes / 1024)} KiB`));
  console.log(line('DIGEST_CONCURRENCY', CONCURRENCY ?? 'default'));
  console.log(line('queue fill (addBulk × 1,000)', `${round(fillS)} s`));
  console.log(line('worker boot until first job taken', `${round(bootS)} s`));
  console.log(line('drain time', `${round(drainS)} s`));
  console.log(line('throughput', `${eventsPerS} events/s`));
  console.log(line('worker peak RSS (VmHWM)', `${Math.round(peakRssMb)} MB`));
  console.log(
    line('CPU per event: worker / PostgreSQL', `${cpuUsPerEvent.worker} / ${cpuUsPerEvent.postgres} µs`),
  );
  console.log(line('CPU per event: Redis (whole server)', `${cpuUsPerEvent.redis} µs`));
  console.log(
    line(`reference: jsonb INSERT, ${REFERENCE_CONNECTIONS} conn.`, `${reference.rowsPerS} rows/s`),
  );
  console.log(line('reference: PostgreSQL CPU per row', `${reference.postgresCpuUsPerRow} µs`));
  console.log(line('digest / reference', `${ratioToReference.toFixed(2)}`));
  if (scrubbing) {
    console.log(
      line(
        'worker CPU/event, scrubbing off / on',
        `${scrubbing.offUsPerEvent} / ${scrubbing.onUsPerEvent} µs`,
      ),
    );
    console.log(line('scrubbing on / off (target ≤ 1.10)', `${scrubbing.ratio.toFixed(3)}`));
    console.log(line('the scrubber alone, in-process', `${scrubbing.scrubberUsPerEvent} µs/event`));
  }
  console.log('');
  for (const [name, check] of Object.entries(verification)) {
    console.log(`verify ${name}: ${check.ok ? 'ok' : 'FAILED'} ${JSON.stringify(check)}`);
  }
  console.log(
    `targets: ${Object.entries(targets)
      .map(([k, v]) => `${k} ${v ? 'met' : 'MISSED'}`)
      .join(', ')}`,
  );
  console.log('written to bench/results/digest.json');
  if (!allVerified) process.exitCode = 1;
}

/** Every group's issue holds its original function: the frames went through the map. */
async function symbolicatedSample(
  pg: Client,
  projectId: number,
  sourceMap: SourceMapFixture,
): Promise<{ expected: number; actual: number; ok: boolean }> {
  const { rows } = await pg.query<{ culprit: string }>('SELECT culprit FROM issues WHERE project_id = $1', [
    projectId,
  ]);
  const expected = new Set(sourceMap.functions.slice(0, GROUPS));
  const actual = rows.filter((row) => [...expected].some((name) => row.culprit.includes(name))).length;
  return { expected: GROUPS, actual, ok: actual === GROUPS };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function thin<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]).concat(items[items.length - 1]);
}

main().then(
  () => process.exit(),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
