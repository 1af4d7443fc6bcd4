import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';

export const REDIS = Symbol('REDIS');

/**
 * Options shared by every Redis connection the service opens (the shared client here and BullMQ's).
 * Commands fail fast while Redis is unreachable instead of piling up in memory: an ingest request
 * must get a 503 rather than wait for a reconnect that may never come.
 */
export function redisOptions(url: string) {
  const parsed = new URL(url);
  return {
    host: parsed.hostname || '127.0.0.1',
    port: Number(parsed.port || 6379),
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: Number(parsed.pathname.replace('/', '') || 0),
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
    enableOfflineQueue: false,
    maxRetriesPerRequest: null,
    connectTimeout: 5_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  };
}

/**
 * A Redis that accepts connections but stops answering (a hung server, a half-open connection)
 * must not hold requests: every command of the shared client fails after this long, so request
 * paths that need Redis answer 503 within it.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** The shared client for rate-limit counters, caches and readiness checks (not for BullMQ). */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        const client = new Redis({
          ...redisOptions(config.REDIS_URL),
          maxRetriesPerRequest: 1,
          enableAutoPipelining: true,
          commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        });
        // Connection errors are reported by readiness and by the requests that need Redis; an
        // unhandled 'error' event would otherwise crash the process.
        client.on('error', () => undefined);
        return client;
      },
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
