import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { Cluster } from 'ioredis';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { bullConnection, closeRedisClient, createRedisClient, RedisClient } from './redis-client';

export { redisOptions } from './redis-client';
export type { RedisClient } from './redis-client';

export const REDIS = Symbol('REDIS');
/** The connection of the queues and workers BullModule builds (a cluster client needs an owner). */
export const BULL_CONNECTION = Symbol('BULL_CONNECTION');

/**
 * A Redis that accepts connections but stops answering (a hung server, a half-open connection)
 * must not hold requests: every command of the shared client fails after this long, so request
 * paths that need Redis answer 503 within it.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/**
 * A server that is not what REDIS_CLUSTER says fails every queue command with errors that do not
 * name the cause (MOVED, CROSSSLOT, "Failed to refresh slots cache"): say it in plain words.
 */
function reportModeMismatch(client: RedisClient): void {
  const log = new RepeatedLog(new Logger('Redis'), 60_000);
  if (client instanceof Cluster) {
    client.on('node error', (error: Error) => {
      if (/cluster support disabled/i.test(error.message)) {
        log.error(
          'mode',
          'REDIS_CLUSTER is true but REDIS_URL is a Redis without cluster mode: set REDIS_CLUSTER=false, or point REDIS_URL at the cluster',
        );
      }
    });
    return;
  }
  client.on('ready', () => {
    client.info('cluster').then(
      (info) => {
        if (/^cluster_enabled:1\b/m.test(info)) {
          log.error(
            'mode',
            'REDIS_URL is a node of a Redis Cluster: set REDIS_CLUSTER=true (queues need their hash tags there)',
          );
        }
      },
      () => undefined,
    );
  });
}

interface OwnedBullConnection {
  connection: ConnectionOptions;
  release: () => Promise<void>;
}

/**
 * The shared client for rate-limit counters, caches and readiness checks (not for BullMQ), and the
 * connection BullModule's queues and workers use. Global, so it is shut down after the modules that
 * use them, the workers included.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        const client = createRedisClient(config, {
          offlineQueue: false,
          maxRetriesPerRequest: 1,
          autoPipelining: true,
          commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        });
        // Connection errors are reported by readiness and by the requests that need Redis; an
        // unhandled 'error' event would otherwise crash the process.
        client.on('error', () => undefined);
        reportModeMismatch(client);
        return client;
      },
    },
    {
      provide: BULL_CONNECTION,
      inject: [AppConfig],
      useFactory: (config: AppConfig): OwnedBullConnection => bullConnection(config, { offlineQueue: true }),
    },
  ],
  exports: [REDIS, BULL_CONNECTION],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(BULL_CONNECTION) private readonly bull: OwnedBullConnection,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([closeRedisClient(this.redis), this.bull.release()]);
  }
}
