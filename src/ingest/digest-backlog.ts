import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { REDIS } from '../redis/redis.module';

const TIMEOUT_MS = 1_000;

/**
 * How many digest jobs wait to be processed (waiting + paused + prioritized + active + delayed):
 * the number that tells an operator the digest is falling behind and events will show up late.
 *
 * Read straight from BullMQ's key layout (`<prefix>:<queue>:wait|paused|active` lists and the
 * `prioritized|delayed` sorted sets) through the shared client, in one pipeline, so it works in
 * every role without opening a queue connection.
 */
@Injectable()
export class DigestBacklog {
  private readonly base: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    config: AppConfig,
  ) {
    this.base = `${config.REDIS_PREFIX}:${QueueName.Digest}`;
  }

  /** The backlog, or undefined when Redis does not answer. */
  async count(): Promise<number | undefined> {
    const read = this.redis
      .multi()
      .llen(`${this.base}:wait`)
      .llen(`${this.base}:paused`)
      .llen(`${this.base}:active`)
      .zcard(`${this.base}:prioritized`)
      .zcard(`${this.base}:delayed`)
      .exec();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), TIMEOUT_MS);
    });
    try {
      const results = await Promise.race([read, timeout]);
      if (!results) return undefined;
      let total = 0;
      for (const [error, value] of results) {
        if (error) return undefined;
        total += Number(value);
      }
      return total;
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
