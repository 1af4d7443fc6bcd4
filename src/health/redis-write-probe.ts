import { Inject, Injectable } from '@nestjs/common';
import { Cluster } from 'ioredis';
import { withDeadline } from '../common/deadline';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { queuePrefix } from '../jobs/queue-layout';
import { REDIS, RedisClient } from '../redis/redis.module';
import { memoryRefusal, parseRedisMemory } from './redis-memory-room';

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
 *
 * The SET alone does not see a Redis that is full for ingest: Redis admits a command while its used
 * memory, the command's own bytes included, is under `maxmemory`, so a few bytes rewritten in place
 * pass while every job of ingest is refused. So the probe also reads `INFO memory` (of every master
 * of a cluster) and reports a refusal when less room is left than one event may take.
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
      const full = await withDeadline(
        this.redis.set(this.key, String(Date.now()), 'PX', PROBE_TTL_MS).then(() => this.memoryRefusal()),
        PROBE_TIMEOUT_MS,
        'no answer within 2 s',
      );
      return full === null ? { status: 'ok' } : { status: 'refused', error: full };
    } catch (error) {
      // A reply error is Redis answering no; anything else is the connection.
      const refused = (error as Error).name === 'ReplyError';
      return { status: refused ? 'refused' : 'unreachable', error: (error as Error).message.slice(0, 300) };
    }
  }

  /** Why a master has no room for ingest's next write, or null (also when INFO is not allowed). */
  private async memoryRefusal(): Promise<string | null> {
    const nodes = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    const answers = await Promise.all(
      nodes.map((node) =>
        node.info('memory').catch((error: Error) => {
          // A managed Redis may rename INFO away: the SET's answer is then all there is to go by.
          if (error.name === 'ReplyError') return '';
          throw error;
        }),
      ),
    );
    for (const answer of answers) {
      const memory = parseRedisMemory(answer);
      const refusal = memory === null ? null : memoryRefusal(memory);
      if (refusal !== null) return refusal;
    }
    return null;
  }
}
