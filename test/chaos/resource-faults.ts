/**
 * The chaos suite's faults that exhaust a resource rather than stop a process (see run.ts):
 *
 * - `disk`: PostgreSQL's data disk full while its WAL disk has room, with the relation cache init
 *   files (`pg_internal.init`) lost: PostgreSQL stays up, refuses to extend a table or index (53100)
 *   and refuses every new connection (FATAL "could not write init file", XX000), since each must
 *   write that file again. A checkpoint on a full data disk PANICs (it cannot write
 *   pg_logical/replorigin_checkpoint), so the fault begins right after one (CHECKPOINT) and the
 *   next is minutes away (checkpoint_timeout, and max_wal_size far above the WAL the fault writes);
 * - `wal`: the WAL disk full: PostgreSQL PANICs when it needs a new segment, its recovery fails the
 *   same way and it shuts down; the space is freed and it is started again;
 * - `redis-memory`: Redis at `maxmemory` (policy noeviction): every write is answered OOM.
 *
 * Each watches the api's readiness during the fault, which must notice it.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { Cleanup } from '../helpers/cleanup';
import { PostgresOptions, postgresOwner } from '../helpers/postgres-servers';
import { formatMb, SmallDisk } from './disks';
import { query } from './db';
import { sleep } from './processes';
import { backlog, describeBacklog } from './queue-state';
import { ReadinessAnswer, ReadinessWatch, readyAgain } from './readiness';
import { begin, fail, note, Phase, Suite } from './suite';

/**
 * Sizes of the small disks: the data reaches about 120 MB by the end of the whole suite (retention's
 * seeding, the worker fault's burst, the load), the WAL stays near max_wal_size. tmpfs takes memory
 * only as it is written to; the filler takes the rest for the length of the fault.
 */
const DATA_DISK_MB = 1024;
const WAL_DISK_MB = 256;
/**
 * 1 MB segments, few kept ahead (min_wal_size); max_wal_size holds the WAL well within its disk and
 * spaces checkpoints far enough apart that none comes during the data disk fault (there, one would
 * PANIC). The WAL fault lowers it to FAULT_MAX_WAL_SIZE for its own length.
 */
const WAL_SEGMENT_MB = 1;
const WAL_SETTINGS = { min_wal_size: '2MB', max_wal_size: '64MB' };
const FAULT_MAX_WAL_SIZE = '2MB';
/** How long the `wal` fault waits for PostgreSQL to go down, and lets the load alone drive WAL. */
const WAL_DOWN_TIMEOUT_MS = 60_000;
const WAL_LOAD_ONLY_MS = 5_000;
/** How long a fault waits for readiness to say "ok" again afterwards (a note only). */
const READY_AGAIN_MS = 30_000;

export interface PostgresDisks {
  data: SmallDisk;
  wal: SmallDisk;
}

/**
 * Mounts the two small disks under `baseDir` and registers their unmounting (after PostgreSQL is
 * stopped: register this before PostgreSQL's stop). Without root, or when mounting fails, or with
 * CHAOS_TMPFS=0, none: the reason is returned, and the faults that need them are skipped.
 */
export async function mountPostgresDisks(
  baseDir: string,
  cleanup: Cleanup,
): Promise<{ disks: PostgresDisks; options: PostgresOptions } | { reason: string }> {
  if (process.env.CHAOS_TMPFS === '0')
    return { reason: 'CHAOS_TMPFS=0: PostgreSQL runs on ordinary folders' };
  if (process.getuid?.() !== 0) return { reason: 'mounting a tmpfs takes root' };
  const disks = {
    data: new SmallDisk(join(baseDir, 'datafs'), DATA_DISK_MB),
    wal: new SmallDisk(join(baseDir, 'walfs'), WAL_DISK_MB),
  };
  cleanup.add('unmount the small disks', async () => {
    if (process.env.CHAOS_KEEP_TMP === '1') {
      console.log(`kept mounted: ${disks.data.mountPoint} ${disks.wal.mountPoint} (umount them when done)`);
      return;
    }
    await disks.wal.unmount();
    await disks.data.unmount();
  });
  try {
    for (const disk of [disks.data, disks.wal]) await disk.mount(postgresOwner());
  } catch (error) {
    await disks.data.unmount().catch(() => undefined);
    const failure = error as { stderr?: string; message: string };
    const said = (failure.stderr || failure.message).split('\n').map((line) => line.trim());
    return {
      reason: `mount -t tmpfs failed: ${said.filter((line) => line && !line.includes('dmesg')).join(' ')}`,
    };
  }
  return {
    disks,
    options: {
      dataDir: join(disks.data.mountPoint, 'data'),
      walDir: join(disks.wal.mountPoint, 'wal'),
      walSegmentMb: WAL_SEGMENT_MB,
      settings: WAL_SETTINGS,
    },
  };
}

const readyUrl = (suite: Suite) => `${suite.api.url}/health/ready`;

/** PostgreSQL's log from `offset` on. */
const logSince = (file: string, offset: number) => readFileSync(file).subarray(offset).toString('utf8');
const linesOf = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line));

/** Fails the phase unless readiness gave one answer that `expected` accepts; notes what it said. */
function judgeReadiness(
  phase: Phase,
  watch: ReadinessWatch,
  what: string,
  expected: (answer: ReadinessAnswer) => boolean,
): void {
  note(phase, `readiness during the fault: ${watch.summary()}`);
  if (!watch.answers.some(expected)) fail(phase, `readiness never said ${what} during the fault`);
}

/** The relation cache init files: global/ and one per database folder. */
function initFiles(dataDir: string): string[] {
  const candidates = [
    join(dataDir, 'global', 'pg_internal.init'),
    ...readdirSync(join(dataDir, 'base')).map((db) => join(dataDir, 'base', db, 'pg_internal.init')),
  ];
  return candidates.filter((file) => statSync(file, { throwIfNoEntry: false }) !== undefined);
}

export async function dataDiskFull(
  suite: Suite,
  disks: PostgresDisks,
  label: string,
  seconds: number,
): Promise<void> {
  const { pg, databaseUrl, redis, queues } = suite;
  const phase = begin(suite, 'disk', label);
  await sleep(3_000);
  const logOffset = statSync(pg.logFile).size;
  // Opened before the fault: a connection opened during it is refused.
  const monitor = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  monitor.on('error', () => undefined);
  await monitor.connect();
  let watch: ReadinessWatch | undefined;
  try {
    await monitor.query('CHECKPOINT');
    const [{ lsn }] = (await monitor.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows;
    const used = disks.data.usage().used;
    // Deleting the init files frees their space: the filler takes it back, until none is left.
    let deleted = 0;
    let filler = 0;
    for (let round = 0; round < 5; round++) {
      const files = initFiles(pg.dataDir);
      if (round > 0 && files.length === 0) break;
      for (const file of files) rmSync(file, { force: true });
      deleted += files.length;
      filler += round === 0 ? await disks.data.fill() : disks.data.topUp();
    }
    const faultStarted = Date.now();
    note(
      phase,
      `data disk full after a CHECKPOINT: ${formatMb(used)} of PostgreSQL data, a filler of ${formatMb(filler)}, ` +
        `${disks.data.usage().free} bytes free; ${deleted} pg_internal.init files deleted, ` +
        `${initFiles(pg.dataDir).length} there now; WAL disk ${formatMb(disks.wal.usage().free)} free`,
    );
    watch = new ReadinessWatch(readyUrl(suite));
    await sleep(2_000);
    // Evidence that new connections are refused, whatever the service happens to open.
    const fresh = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
    const refusal = await fresh.connect().then(
      () => 'ACCEPTED',
      (error: { code?: string; message?: string }) => `refused: ${error.code ?? '?'} ${error.message ?? ''}`,
    );
    await fresh.end().catch(() => undefined);
    note(phase, `a new connection from the suite during the fault: ${refusal}`);
    for (let next = faultStarted + 10_000; Date.now() < faultStarted + seconds * 1000; next += 10_000) {
      await sleep(Math.max(0, Math.min(next, faultStarted + seconds * 1000) - Date.now()));
      const b = await backlog(redis, queues).catch(() => undefined);
      if (b)
        note(
          phase,
          `${((Date.now() - faultStarted) / 1000).toFixed(0)} s into the fault; backlog: ${describeBacklog(b)}`,
        );
    }
    await watch.stop();
    const wal = await monitor
      .query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint::text AS bytes', [
        lsn,
      ])
      .then((result) => formatMb(Number(result.rows[0].bytes)))
      .catch((error: Error) => `unknown (${error.message})`);
    disks.data.release();
    note(
      phase,
      `filler deleted after ${((Date.now() - faultStarted) / 1000).toFixed(0)} s; WAL written meanwhile: ${wal}`,
    );

    const logged = logSince(pg.logFile, logOffset);
    const extend = linesOf(logged, /could not extend file/);
    const initFile = linesOf(logged, /FATAL: +could not write init file/);
    const panics = linesOf(logged, /PANIC:/);
    note(
      phase,
      `PostgreSQL logged ${extend.length}× "could not extend file … No space left on device" (53100), ` +
        `${initFile.length}× "FATAL: could not write init file" (XX000), ${panics.length} PANIC`,
    );
    if (extend.length === 0 && initFile.length === 0) {
      fail(phase, 'the fault was not injected: PostgreSQL refused nothing');
    }
    if (panics.length > 0) fail(phase, `PostgreSQL crashed during the fault: ${panics[0]}`);
    if (!(await pg.running())) {
      fail(phase, 'PostgreSQL is down after the fault; starting it');
      await pg.start();
    }
    judgeReadiness(phase, watch, '200 "degraded"', (a) => a.code === '200' && a.status === 'degraded');
  } finally {
    await watch?.stop();
    await monitor.end().catch(() => undefined);
    disks.data.release();
  }
  readyAfter(phase, await readyAgain(readyUrl(suite), READY_AGAIN_MS));
  await sleep(3_000);
}

export async function walDiskFull(
  suite: Suite,
  disks: PostgresDisks,
  label: string,
  downSeconds: number,
): Promise<void> {
  const { pg, databaseUrl } = suite;
  const phase = begin(suite, 'wal', label);
  await sleep(3_000);
  const logOffset = statSync(pg.logFile).size;
  let pgState: string | undefined;
  const driver = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  driver.on('error', () => undefined);
  await driver.connect();
  let downAt = 0;
  const watch = new ReadinessWatch(readyUrl(suite), () => pgState);
  try {
    // Few segments kept ahead: a checkpoint under a tiny max_wal_size removes the recycled ones,
    // so that the next segments must be created, on a disk with no room.
    await driver.query(`ALTER SYSTEM SET max_wal_size = '${FAULT_MAX_WAL_SIZE}'`);
    await driver.query('SELECT pg_reload_conf()');
    await driver.query('CHECKPOINT');
    const walUsed = disks.wal.usage().used;
    const filledAt = Date.now();
    const filler = await disks.wal.fill();
    note(
      phase,
      `WAL disk full after max_wal_size ${FAULT_MAX_WAL_SIZE} and a CHECKPOINT: ${formatMb(walUsed)} of WAL, ` +
        `a filler of ${formatMb(filler)}, ${disks.wal.usage().free} bytes free`,
    );
    // The load's writes alone at first; then the suite's too, each commit followed by a switch to a
    // new segment.
    let switches = 0;
    let driving = true;
    while (Date.now() - filledAt < WAL_DOWN_TIMEOUT_MS) {
      if (!(await pg.running())) {
        downAt = Date.now();
        pgState = 'PostgreSQL down';
        break;
      }
      if (!driving || Date.now() - filledAt < WAL_LOAD_ONLY_MS) {
        await sleep(50);
        continue;
      }
      try {
        for (let i = 0; i < 10; i++) {
          await driver.query('SELECT txid_current()');
          await driver.query('SELECT pg_switch_wal()');
          switches++;
        }
      } catch {
        driving = false;
      }
    }
    const logged = logSince(pg.logFile, logOffset);
    const panics = linesOf(logged, /PANIC:/);
    if (downAt === 0) {
      fail(
        phase,
        `the fault was not injected: PostgreSQL still up ${WAL_DOWN_TIMEOUT_MS / 1000} s after the WAL disk was filled ` +
          `(${switches} WAL switches by the suite, ${panics.length} PANIC logged)`,
      );
    } else {
      note(
        phase,
        `PostgreSQL went down ${((downAt - filledAt) / 1000).toFixed(1)} s after the WAL disk was filled ` +
          `(${switches} WAL switches by the suite); ${panics.length} PANIC: ${panics[0] ?? '-'}; ` +
          `then: ${linesOf(logged, /shutting down|startup process|database system is shut down/).at(-1) ?? '-'}`,
      );
      await sleep(Math.max(0, downAt + downSeconds * 1000 - Date.now()));
    }
    disks.wal.release();
    pgState = 'restarting';
    if (!(await pg.running())) {
      await pg.start();
      note(
        phase,
        `WAL filler deleted, PostgreSQL started again (down ${((Date.now() - downAt) / 1000).toFixed(0)} s)`,
      );
    }
    pgState = undefined;
    await sleep(2_000);
    await watch.stop();
    judgeReadiness(
      phase,
      watch,
      '503 while PostgreSQL was down',
      (a) => a.code === '503' && a.tag === 'PostgreSQL down',
    );
  } finally {
    await watch.stop();
    await driver.end().catch(() => undefined);
    disks.wal.release();
    await query(databaseUrl, 'ALTER SYSTEM RESET max_wal_size')
      .then(() => query(databaseUrl, 'SELECT pg_reload_conf()'))
      .catch((error: Error) => fail(phase, `max_wal_size not reset after the fault: ${error.message}`));
  }
  readyAfter(phase, await readyAgain(readyUrl(suite), READY_AGAIN_MS));
  await sleep(3_000);
}

export async function redisMemoryFull(suite: Suite, seconds: number): Promise<void> {
  const { redis } = suite;
  const phase = begin(suite, 'redis-memory', `8. Redis at maxmemory (noeviction) ${seconds} s`);
  await sleep(3_000);
  const probeKey = 'chaos-suite:memory-probe';
  const oomCount = async () =>
    Number(/errorstat_OOM:count=(\d+)/.exec(await redis.info('errorstats'))?.[1] ?? 0);
  /**
   * maxmemory down to what Redis uses now: the next write that needs memory is refused. Redis leaves
   * its AOF and replication buffers out of that count (`mem_not_counted_for_evict`): under a load of
   * many small writes they alone would leave room for the probe.
   */
  const limit = async () => {
    const info = await redis.info('memory');
    const used =
      Number(/used_memory:(\d+)/.exec(info)?.[1]) -
      Number(/mem_not_counted_for_evict:(\d+)/.exec(info)?.[1] ?? 0);
    await redis.config('SET', 'maxmemory', String(used));
    return used;
  };
  const probe = () =>
    redis.set(probeKey, String(Date.now())).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
  const oomBefore = await oomCount();
  let maxmemory = await limit();
  let answer = await probe();
  for (let tries = 0; tries < 20 && !answer.startsWith('OOM'); tries++) {
    maxmemory = await limit();
    answer = await probe();
  }
  const faultStarted = Date.now();
  note(phase, `CONFIG SET maxmemory ${maxmemory} (used_memory then); a write from the suite: ${answer}`);
  if (!answer.startsWith('OOM')) fail(phase, 'the fault was not injected: Redis still accepts writes');
  const watch = new ReadinessWatch(readyUrl(suite));
  // Finished jobs give memory back: the limit follows it down, so that writes stay refused.
  let lowered = 0;
  try {
    while (Date.now() - faultStarted < seconds * 1000) {
      await sleep(Math.min(2_000, faultStarted + seconds * 1000 - Date.now()));
      if ((await probe()) === 'accepted') {
        maxmemory = await limit();
        lowered++;
      }
    }
  } finally {
    await redis.config('SET', 'maxmemory', '0');
    await watch.stop();
  }
  await redis.del(probeKey);
  note(
    phase,
    `CONFIG SET maxmemory 0 after ${((Date.now() - faultStarted) / 1000).toFixed(0)} s (limit lowered ${lowered} times ` +
      `as memory was freed, last ${maxmemory}); Redis answered ${(await oomCount()) - oomBefore} commands with OOM`,
  );
  judgeReadiness(
    phase,
    watch,
    '200 "degraded" with redis_writes refused',
    (a) => a.code === '200' && a.status === 'degraded' && a.checks.redis_writes === 'refused',
  );
  readyAfter(phase, await readyAgain(readyUrl(suite), READY_AGAIN_MS));
  await sleep(3_000);
}

/** Readiness must come back to "ok" by itself once the fault is over: a stale "degraded" is a failure. */
function readyAfter(phase: Phase, outcome: string): void {
  if (outcome.startsWith('readiness NOT')) fail(phase, outcome);
  else note(phase, outcome);
}
