/**
 * The digest worker under measurement, for bench/digest.ts: filling a digest queue as the ingest
 * producer does, and draining it with one worker process (`node dist/main.js`, APP_ROLE=worker)
 * while its CPU, its PostgreSQL backends' and Redis' are read.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Queue } from 'bullmq';
import type Redis from 'ioredis';
import type { Client } from 'pg';
import { digestJobs, QueuedEvent } from '../src/digest/digest-job';
import {
  backendCpuMs,
  backendCpuSpentMs,
  freePort,
  pendingRollups,
  processCpuMs,
  procStatus,
  REDIS_URL,
  ROOT,
  stop,
} from './support';

const CHUNK = 1_000;

/** Queues the events in jobs of `eventsPerJob` (as ingest shares jobs among concurrent requests), `addBulk` per 1,000 events; returns the job count. */
export async function fillDigestQueue(
  queue: Queue,
  events: QueuedEvent[],
  eventsPerJob: number,
): Promise<number> {
  let jobCount = 0;
  for (let start = 0; start < events.length; start += CHUNK) {
    const chunk = events.slice(start, start + CHUNK);
    const jobs = [];
    for (let first = 0; first < chunk.length; first += eventsPerJob)
      jobs.push(...digestJobs(chunk.slice(first, first + eventsPerJob)));
    jobCount += jobs.length;
    await queue.addBulk(jobs);
  }
  return jobCount;
}

export interface DrainOptions {
  /** A connection to the bench database, to read its backends' CPU and the pending rollups. */
  pg: Client;
  databaseName: string;
  databaseUrl: string;
  redis: Redis;
  queue: Queue;
  prefix: string;
  jobCount: number;
  concurrency?: string;
  /** Write a V8 CPU profile of the worker under this name to bench/results/profiles/. */
  profileName?: string;
}

export interface DrainResult {
  bootS: number;
  drainS: number;
  /** CPU spent while draining, in ms: the worker's, its PostgreSQL backends' and Redis' (when local). */
  cpuSpent: { worker: number; postgres: number; redis: number };
  peakRssMb: number;
  failed: number;
  samples: { t: number; remaining: number }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a worker on the pre-filled queue and waits until nothing is waiting, active or delayed and
 * the rollups hold every stored event. The drain is timed from the first job leaving the queue.
 */
export async function drainWithWorker(options: DrainOptions): Promise<DrainResult> {
  const { pg, queue, jobCount } = options;
  const port = await freePort();
  const profileDir = join(ROOT, 'bench/results/profiles');
  if (options.profileName) mkdirSync(profileDir, { recursive: true });
  const nodeArgs = options.profileName
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${profileDir}`,
        `--cpu-prof-name=${options.profileName}`,
        // Nest re-raises SIGTERM after its shutdown hooks, which would kill the process before V8 writes
        // the profile: exit normally instead.
        '--import',
        'data:text/javascript,process.prependListener("SIGTERM",()=>process.exit(0))',
      ]
    : [];
  const spawnedAt = performance.now();
  const worker = spawn(process.execPath, [...nodeArgs, 'dist/main.js'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      APP_ROLE: 'worker',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl,
      REDIS_URL,
      REDIS_PREFIX: options.prefix,
      LOG_LEVEL: 'warn',
      SERVE_DASHBOARD: 'false',
      ...(options.concurrency ? { DIGEST_CONCURRENCY: options.concurrency } : {}),
    },
  });
  let exitedEarly: number | null = null;
  worker.once('exit', (code) => (exitedEarly = code ?? -1));

  let firstTakenAt: number | undefined;
  let drainedAt: number | undefined;
  const redisPid = Number(/process_id:(\d+)/.exec(await options.redis.info('server'))?.[1]);
  let cpuAtStart: { worker: number; backends: Map<number, number>; redis: number } | undefined;
  let cpuSpent = { worker: NaN, postgres: NaN, redis: NaN };
  let peakRssMb = NaN;
  let failed = 0;
  const samples: { t: number; remaining: number }[] = [];
  try {
    const deadline = Date.now() + Math.max(600_000, jobCount * 200);
    for (;;) {
      if (exitedEarly !== null) throw new Error(`worker exited with ${exitedEarly}`);
      if (Date.now() > deadline) throw new Error('the queue did not drain in time');
      const counts = await queue.getJobCounts(
        'waiting',
        'active',
        'delayed',
        'prioritized',
        'paused',
        'failed',
      );
      const remaining = counts.waiting + counts.active + counts.delayed + counts.prioritized + counts.paused;
      failed = counts.failed;
      const now = performance.now();
      if (firstTakenAt === undefined && remaining + counts.failed < jobCount) {
        firstTakenAt = now;
        cpuAtStart = {
          worker: processCpuMs(worker.pid!),
          backends: await backendCpuMs(pg, options.databaseName),
          redis: processCpuMs(redisPid),
        };
      }
      if (firstTakenAt !== undefined) samples.push({ t: Math.round(now - firstTakenAt), remaining });
      if (remaining === 0 && (await pendingRollups(pg)) === 0) {
        drainedAt = now;
        if (cpuAtStart) {
          cpuSpent = {
            worker: processCpuMs(worker.pid!) - cpuAtStart.worker,
            postgres: backendCpuSpentMs(cpuAtStart.backends, await backendCpuMs(pg, options.databaseName)),
            redis: processCpuMs(redisPid) - cpuAtStart.redis,
          };
        }
        break;
      }
      await sleep(50);
    }
    peakRssMb = procStatus(worker.pid!, 'VmHWM');
  } finally {
    await stop(worker);
  }
  return {
    bootS: (firstTakenAt! - spawnedAt) / 1000,
    drainS: (drainedAt! - firstTakenAt!) / 1000,
    cpuSpent,
    peakRssMb,
    failed,
    samples,
  };
}
