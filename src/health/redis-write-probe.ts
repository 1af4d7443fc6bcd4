import { Inject, Injectable } from '@nestjs/common';
import { withDeadline } from '../common/deadline';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { queuePrefix } from '../jobs/queue-layout';
import { REDIS, RedisClient } from '../redis/redis.module';

export type RedisWriteStatus = 'ok' | 'refused' | 'unreachable';

export interface RedisWriteResult {
  status: RedisWriteStatus;
  /** Redis' own answer (`OOM command not allowed …`, `READONLY …`, `MISCONF …`) or the client's error. */
  error?: string;
}

const PROBE_TIMEOUT_MS = 2_000;
const PROBE_TTL_MS = 60_000;

/**
 * Whether Redis takes a write now: a SET of one short-lived key. PING answers on a Redis at
 * `maxmemory` with `noeviction` (OOM), on a replica (READONLY) and on one whose snapshots fail
 * (MISCONF), while ingest's every write is refused. The key sits in the digest queue's hash slot,
 * where ingest writes its jobs (a Redis Cluster's other masters answer PING in the readiness check).
 */
@Injectable()
export class RedisWriteProbe {
  private readonly key: string;
  /** Callers that ask while a probe is out share it; a finished probe is never reused. */
  private inFlight: Promise<RedisWriteResult> | undefined;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.key = `${queuePrefix(config, QueueName.Digest)}:health-probe`;
  }

  check(): Promise<RedisWriteResult> {
    this.inFlight ??= this.probe().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async probe(): Promise<RedisWriteResult> {
    try {
      await withDeadline(
        this.redis.set(this.key, String(Date.now()), 'PX', PROBE_TTL_MS),
        PROBE_TIMEOUT_MS,
        'no answer within 2 s',
      );
      return { status: 'ok' };
    } catch (error) {
      // A reply error is Redis answering no; anything else is the connection.
      const refused = (error as Error).name === 'ReplyError';
      return { status: refused ? 'refused' : 'unreachable', error: (error as Error).message.slice(0, 300) };
    }
  }
}
