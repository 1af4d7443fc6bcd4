/**
 * What the chaos suite reads of the service's queues in Redis: the digest backlog by state, where lost
 * events are now, the failed set's reasons, and how a maintenance job ended.
 */
import { Job, Queue } from 'bullmq';
import Redis from 'ioredis';
import { QueueName } from '../../src/common/queues';
import { DigestJobData, eventsOfJob } from '../../src/digest/digest-job';
import { openQueue, queueKey, QueueSettings } from '../../src/jobs/queue-layout';
import type { RetentionReport } from '../../src/retention/retention.service';
import { formatOutcomes } from './load';
import { sleep } from './processes';

export interface Backlog {
  wait: number;
  active: number;
  paused: number;
  prioritized: number;
  delayed: number;
  failed: number;
  total: number;
}

export async function backlog(redis: Redis, queues: QueueSettings): Promise<Backlog> {
  const key = (kind: string) => queueKey(queues, QueueName.Digest, kind);
  const results = await redis
    .multi()
    .llen(key('wait'))
    .llen(key('active'))
    .llen(key('paused'))
    .zcard(key('prioritized'))
    .zcard(key('delayed'))
    .zcard(key('failed'))
    .exec();
  if (!results) throw new Error('Redis transaction aborted');
  const [wait, active, paused, prioritized, delayed, failed] = results.map(([error, value]) => {
    if (error) throw error;
    return Number(value);
  });
  return {
    wait,
    active,
    paused,
    prioritized,
    delayed,
    failed,
    total: wait + active + paused + prioritized + delayed,
  };
}

export const describeBacklog = (b: Backlog) =>
  `waiting ${b.wait}, active ${b.active}, delayed ${b.delayed}, prioritized ${b.prioritized}, paused ${b.paused}, failed ${b.failed}`;

export interface JobOutcome {
  state: string;
  report?: RetentionReport;
  reason?: string;
  startedAt?: number;
  finishedAt?: number;
}

/** Polls a job until it is completed or failed, or `until` (epoch ms) has passed. */
export async function jobOutcome(queue: Queue, id: string, until: number): Promise<JobOutcome> {
  for (;;) {
    const job = await Job.fromId<unknown, RetentionReport>(queue, id);
    const state = job ? await job.getState() : 'missing';
    if (state === 'completed' || state === 'failed' || state === 'missing' || Date.now() > until) {
      return {
        state,
        report: job?.returnvalue ?? undefined,
        reason: job?.failedReason,
        startedAt: job?.processedOn,
        finishedAt: job?.finishedOn,
      };
    }
    await sleep(250);
  }
}

/**
 * Where the lost ids are now: in a job of the failed set (with its reason), in a job still queued,
 * or in no job Redis holds. Jobs are read whole, since an event may share its job with others.
 */
export async function explainLost(queues: QueueSettings, ids: string[]): Promise<string> {
  const queue = openQueue(queues, QueueName.Digest, { offlineQueue: true });
  try {
    const lost = new Set(ids);
    const place = new Map<string, string>();
    const reasons = new Map<string, number>();
    for (const state of ['failed', 'waiting', 'active', 'delayed', 'prioritized', 'paused'] as const) {
      const jobs: Job<DigestJobData>[] = await queue.getJobs([state], 0, 49_999);
      for (const job of jobs) {
        for (const event of eventsOfJob(job.data ?? { events: [] })) {
          if (!lost.has(event.eventId) || place.has(event.eventId)) continue;
          place.set(event.eventId, state);
          if (state === 'failed') {
            const key = `${job.failedReason ?? '?'} (attempts ${job.attemptsMade})`;
            reasons.set(key, (reasons.get(key) ?? 0) + 1);
          }
        }
      }
    }
    const inFailed = [...place.values()].filter((state) => state === 'failed').length;
    const parts = [
      `${inFailed} in the failed set`,
      `${place.size - inFailed} in jobs still queued`,
      `${ids.length - place.size} in no job Redis holds`,
    ];
    if (reasons.size > 0) parts.push(`reasons: ${formatOutcomes(reasons)}`);
    return parts.join(', ');
  } finally {
    await queue.close();
  }
}

/**
 * The distinct failure reasons in the failed set (first 5,000 entries), with counts; only of the jobs
 * that failed between `from` and `to` (epoch ms, the set's scores) when given.
 */
export async function failedJobReasons(
  redis: Redis,
  queues: QueueSettings,
  window?: { from: number; to: number },
): Promise<string[]> {
  const digestKey = (kind: string) => queueKey(queues, QueueName.Digest, kind);
  const [from, to] = window ? [String(window.from), `(${window.to}`] : ['-inf', '+inf'];
  const jobIds = await redis.zrangebyscore(digestKey('failed'), from, to, 'LIMIT', 0, 5_000);
  if (jobIds.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const jobId of jobIds) pipeline.hget(digestKey(jobId), 'failedReason');
  const counts = new Map<string, number>();
  for (const [, reason] of (await pipeline.exec()) ?? []) {
    const key = String(reason ?? '?');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${count}× ${reason}`);
}
