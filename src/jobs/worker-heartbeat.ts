import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AppConfig } from '../config/app-config';
import { REDIS, RedisClient } from '../redis/redis.module';

/** Hash under the Redis prefix: one field per worker process, its latest beat as JSON. */
export const WORKERS_KEY = 'workers';
const BEAT_INTERVAL_MS = 5_000;
/** A worker that has not reported for this long is gone (killed, partitioned, stuck). */
export const WORKER_GONE_AFTER_MS = 30_000;
/**
 * A paused digest refuses again at least every 15 s (its longest pause) while the outage lasts; a
 * pause with no refusal for this long is over, even if its worker has taken no job since.
 */
export const PAUSE_OVER_AFTER_MS = 40_000;
/** Beats of workers gone for this long are removed from the hash. */
const FORGET_AFTER_MS = 24 * 3_600_000;

export interface WorkerBeat {
  id: string;
  /** When the process last reported (ISO). */
  seen_at: string;
  /** When it last took a digest job (ISO), null when it has not taken one since it started. */
  last_job_at: string | null;
  /** Present while its digest waits for a database that refuses work: since when, and why. */
  digest_paused?: { since: string; reason: string };
}

interface StoredBeat {
  seen: number;
  lastJob: number | null;
  /** `last`: when the database last refused work. */
  paused?: { since: number; reason: string; last?: number } | null;
}

function seenAt(raw: string): number {
  try {
    return Number((JSON.parse(raw) as Partial<StoredBeat>).seen);
  } catch {
    return NaN;
  }
}

/** The live workers in a heartbeat hash, most recently active first. */
export function parseWorkerBeats(hash: Record<string, string> | null, now: number): WorkerBeat[] {
  const beats: WorkerBeat[] = [];
  for (const [id, raw] of Object.entries(hash ?? {})) {
    let beat: StoredBeat;
    try {
      beat = JSON.parse(raw) as StoredBeat;
    } catch {
      continue;
    }
    if (typeof beat.seen !== 'number' || now - beat.seen > WORKER_GONE_AFTER_MS) continue;
    const view: WorkerBeat = {
      id,
      seen_at: new Date(beat.seen).toISOString(),
      last_job_at: typeof beat.lastJob === 'number' ? new Date(beat.lastJob).toISOString() : null,
    };
    const lastRefusal = beat.paused?.last ?? beat.paused?.since;
    if (
      beat.paused &&
      typeof beat.paused.since === 'number' &&
      now - Number(lastRefusal) <= PAUSE_OVER_AFTER_MS
    ) {
      view.digest_paused = {
        since: new Date(beat.paused.since).toISOString(),
        reason: String(beat.paused.reason).slice(0, 300),
      };
    }
    beats.push(view);
  }
  return beats.sort((a, b) => (b.last_job_at ?? '').localeCompare(a.last_job_at ?? ''));
}

/**
 * Worker role: reports every few seconds that this process is alive and when it last took a digest
 * job, so that `/health/ready` and `/metrics` on any instance show a missing or stuck worker. Taking
 * a job only touches memory; the beat carries it to Redis.
 */
@Injectable()
export class WorkerHeartbeat implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly key: string;
  private lastJob: number | null = null;
  private paused: { since: number; reason: string; last: number } | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.key = `${config.REDIS_PREFIX}:${WORKERS_KEY}`;
  }

  tookJob(): void {
    this.lastJob = Date.now();
  }

  /** The digest paused because the database refused work; told at once, not at the next beat. */
  databaseRefused(reason: string): void {
    const now = Date.now();
    // Still paused from an outage that ended unnoticed: this refusal starts a new one.
    const ongoing = this.paused !== null && now - this.paused.last <= PAUSE_OVER_AFTER_MS;
    this.paused = { since: ongoing ? this.paused!.since : now, reason, last: now };
    if (!ongoing) void this.beat();
  }

  databaseAnswered(): void {
    if (this.paused === null) return;
    this.paused = null;
    void this.beat();
  }

  onApplicationBootstrap(): void {
    void this.beat();
    this.timer = setInterval(() => void this.beat(), BEAT_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.hdel(this.key, this.id).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    const now = Date.now();
    try {
      await this.redis.hset(
        this.key,
        this.id,
        JSON.stringify({ seen: now, lastJob: this.lastJob, paused: this.paused }),
      );
      const all = await this.redis.hgetall(this.key);
      const forgotten = Object.entries(all)
        .filter(([, raw]) => !(now - seenAt(raw) < FORGET_AFTER_MS))
        .map(([id]) => id);
      if (forgotten.length > 0) await this.redis.hdel(this.key, ...forgotten);
    } catch {
      // Redis away: the next beat reports again; readiness already says Redis is down.
    }
  }
}
