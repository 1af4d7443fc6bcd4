import { QueueName } from '../common/queues';
import { DatabaseFailure, failureOfReason } from '../database/database-errors';
import type { RedisClient } from '../redis/redis-client';
import { queueKey, QueueSettings } from './queue-layout';

/** How the digest begins the reason of a job it fails, so that the reason says which kind it is. */
export enum FailedReasonPrefix {
  /** The payload cannot be normalised into an event. */
  Invalid = 'invalid event: ',
  /** PostgreSQL refused the event's values. */
  Data = 'cannot be stored: ',
  /** A conflict that outlasted its retries, or a bug: failed after the job's attempts. */
  Other = 'failed: ',
  /** An outage met by this job alone while the database stored others: never put back by the sweeper. */
  Alone = 'failed while the database stored other events: ',
}

/** BullMQ's reason for a job that stalled more often than the worker allows (a crashing worker). */
const STALLED_REASON = 'job stalled more than allowable limit';

/**
 * Why a job is in a failed set, read from its reason: `invalid` (cannot be normalised), `data`
 * (PostgreSQL refused its values), `unavailable` (the database could not take work: such a job
 * should not be there, and FailedDigestSweeper puts it back), `conflict` and `unknown` (retries ran
 * out), `stalled` (it stalled past the limit). Reasons of earlier versions, without a prefix or a
 * SQLSTATE, are read by their message.
 */
export type FailedJobClass = 'invalid' | 'stalled' | DatabaseFailure;

export const FAILED_JOB_CLASSES: readonly FailedJobClass[] = [
  'invalid',
  'data',
  'unavailable',
  'conflict',
  'unknown',
  'stalled',
];

export function classOfFailedReason(reason: string | null | undefined): FailedJobClass {
  const text = reason ?? '';
  if (text.startsWith(FailedReasonPrefix.Invalid)) return 'invalid';
  if (text.startsWith(FailedReasonPrefix.Alone)) return 'unknown';
  if (text.startsWith(FailedReasonPrefix.Data))
    return failureOfReason(text.slice(FailedReasonPrefix.Data.length), { onEventData: true });
  if (text.startsWith(FailedReasonPrefix.Other))
    return failureOfReason(text.slice(FailedReasonPrefix.Other.length), { onEventData: true });
  if (text.includes(STALLED_REASON)) return 'stalled';
  return failureOfReason(text);
}

/** More than the failed sets keep (10,000 digest jobs): each is read whole. */
const MAX_READ = 20_000;
const PAGE = 1_000;

export interface FailedJobReason {
  id: string;
  reason: string;
}

/**
 * The ids and reasons of a queue's failed set, oldest first, read from BullMQ's keys (the `failed`
 * sorted set, each job's hash) without loading any payload. A job's keys share its queue's hash
 * slot, so a pipeline per page works on a Redis Cluster too.
 */
export async function readFailedReasons(
  redis: RedisClient,
  settings: Pick<QueueSettings, 'REDIS_PREFIX' | 'REDIS_CLUSTER'>,
  queue: QueueName,
): Promise<FailedJobReason[]> {
  const reasons: FailedJobReason[] = [];
  for (let start = 0; start < MAX_READ; start += PAGE) {
    const ids = await redis.zrange(queueKey(settings, queue, 'failed'), start, start + PAGE - 1);
    if (ids.length === 0) break;
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hget(queueKey(settings, queue, id), 'failedReason');
    const results = (await pipeline.exec()) ?? [];
    ids.forEach((id, index) => {
      const [error, reason] = results[index] ?? [null, null];
      if (!error) reasons.push({ id, reason: typeof reason === 'string' ? reason : '' });
    });
    if (ids.length < PAGE) break;
  }
  return reasons;
}

/** How many jobs of a failed set are of each class. */
export function countByClass(reasons: FailedJobReason[]): Record<FailedJobClass, number> {
  const counts = Object.fromEntries(FAILED_JOB_CLASSES.map((name) => [name, 0])) as Record<
    FailedJobClass,
    number
  >;
  for (const { reason } of reasons) counts[classOfFailedReason(reason)]++;
  return counts;
}
