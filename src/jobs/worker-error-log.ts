import type { Logger } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';

/**
 * What BullMQ reports on a worker's 'error' event: Redis going away, a Redis Cluster failing over
 * (`CLUSTERDOWN`, "Too many Cluster redirections", which BullMQ does not count as connection errors
 * and would print as raw stacks without a listener). Once per 30 s and kind of error, in the log.
 */
export class WorkerErrorLog {
  private readonly log: RepeatedLog;

  constructor(
    logger: Logger,
    private readonly queue: string,
  ) {
    this.log = new RepeatedLog(logger, 30_000);
  }

  report(error: Error): void {
    // Messages name jobs, slots and ports: the kind is what repeats.
    const kind = error.message.slice(0, 200).replace(/\b[\w-]*\d[\w-]*\b/g, '#');
    this.log.warn(kind, `${this.queue} worker: ${error.message}`);
  }
}
