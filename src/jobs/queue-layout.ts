import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Logger, Provider } from '@nestjs/common';
import { Queue, QueueOptions } from 'bullmq';
import type { EventEmitter } from 'node:events';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import type { Environment } from '../config/environment';
import { bullConnection, ConnectionTuning } from '../redis/redis-client';
import { WorkerErrorLog } from './worker-error-log';

export type QueueSettings = Pick<Environment, 'REDIS_URL' | 'REDIS_CLUSTER' | 'REDIS_PREFIX'>;

/**
 * The BullMQ prefix of a queue: its keys are `<prefix>:<queue>:<kind>` (`et:digest:wait`). The only
 * place that knows the layout; everything that opens a queue or reads its keys goes through here.
 *
 * BullMQ's scripts and transactions touch several keys of a queue at once, which a Redis Cluster
 * accepts only within one hash slot. In a cluster the queue's name is therefore a hash tag
 * (`et:{digest}:digest:wait`): each queue's keys share a slot, and different queues can sit on
 * different masters. Every key still begins with REDIS_PREFIX, so ACL key patterns (`~et:*`) and
 * prefix scans keep working.
 *
 * A single Redis keeps the untagged layout it has always had: changing it would orphan the jobs
 * waiting under the old names when an installation upgrades. Moving to a cluster means a new Redis
 * anyway, whose queues start empty (drain the backlog first; see docs/operations.md, Redis Cluster).
 */
export function queuePrefix(
  settings: Pick<QueueSettings, 'REDIS_PREFIX' | 'REDIS_CLUSTER'>,
  queue: QueueName,
): string {
  return settings.REDIS_CLUSTER ? `${settings.REDIS_PREFIX}:{${queue}}` : settings.REDIS_PREFIX;
}

/** One of BullMQ's keys of a queue: `wait`, `active`, `failed`, `delayed` … */
export function queueKey(
  settings: Pick<QueueSettings, 'REDIS_PREFIX' | 'REDIS_CLUSTER'>,
  queue: QueueName,
  kind: string,
): string {
  return `${queuePrefix(settings, queue)}:${queue}:${kind}`;
}

/**
 * `BullModule.registerQueue` with the queue's prefix; its connection is BullModule's root one. The
 * queue's errors go to the log: without a listener, an error BullMQ reports (its connection closed
 * while still connecting, when an instance stops right after it started) would be thrown as an
 * unhandled 'error' event.
 */
export function registerQueue(queue: QueueName): DynamicModule {
  const registered = BullModule.registerQueueAsync({
    name: queue,
    inject: [AppConfig],
    useFactory: (config: AppConfig) => ({ prefix: queuePrefix(config, queue) }),
  });
  const errorLog = new WorkerErrorLog(new Logger('Queue'), queue);
  const listener: Provider = {
    provide: `${queue}-queue-error-listener`,
    inject: [getQueueToken(queue)],
    useFactory: (registeredQueue: Queue) => {
      quietAfterClose(registeredQueue);
      return registeredQueue.on('error', (error: Error) => errorLog.report(error));
    },
  };
  return { ...registered, providers: [...(registered.providers ?? []), listener] };
}

/**
 * BullMQ checks a connection it is given (the Redis version, a cluster's slots) in the background,
 * and reports a failure of that check as an 'error' event of the connection. Closing a queue whose
 * connection is shared removes the connection's listeners without waiting for that check: when it
 * fails later (REDIS_CLUSTER=true against a single Redis, a cluster that is down, an instance
 * stopped right after it started), the event has no listener and is thrown as an unhandled
 * 'error'. The queue is closed by then and its errors were logged while it was open: a listener
 * put back after closing lets that last one go.
 */
function quietAfterClose(queue: Queue): void {
  const close = queue.close.bind(queue);
  queue.close = async () => {
    try {
      await close();
    } finally {
      (queue as unknown as { connection?: EventEmitter }).connection?.on('error', () => undefined);
    }
  };
}

/**
 * A queue that closes the cluster client it was given when it is closed itself. Its errors go to the
 * log, as a registered queue's do (see registerQueue), unless its owner listens for them itself.
 */
class QueueOnOwnConnection extends Queue {
  constructor(
    name: string,
    options: QueueOptions,
    private readonly release: () => Promise<void>,
  ) {
    super(name, options);
    quietAfterClose(this);
    const errorLog = new WorkerErrorLog(new Logger('Queue'), name);
    this.on('error', (error: Error) => {
      if (this.listenerCount('error') === 1) errorLog.report(error);
    });
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      await this.release();
    }
  }
}

/** A handle on one of the installation's queues with a connection of its own, released by `close()`. */
export function openQueue(settings: QueueSettings, queue: QueueName, tuning: ConnectionTuning): Queue {
  const { connection, release } = bullConnection(settings, tuning);
  return new QueueOnOwnConnection(queue, { connection, prefix: queuePrefix(settings, queue) }, release);
}
