import { Job, Queue } from 'bullmq';
import { QueueName } from '../common/queues';
import { openQueue, QueueSettings } from './queue-layout';

export interface FailedJobView {
  queue: QueueName;
  id: string;
  name: string;
  failed_at: string | null;
  attempts: number;
  reason: string;
  /** What the job is about (project and event, or events, of a digest job), never its payload. */
  subject: Record<string, unknown>;
}

const PAGE = 500;

/**
 * The failed sets of the queues, for operators (`npm run cli -- jobs:failed | jobs:retry |
 * jobs:purge`): a job lands there only when its payload can never be processed as it is, so after a
 * fix it can be replayed, or cleared once read.
 */
export class FailedJobs {
  private readonly queues: Map<QueueName, Queue>;

  constructor(settings: QueueSettings) {
    this.queues = new Map(
      Object.values(QueueName).map((name) => [
        name,
        // An operator command fails rather than waits forever when Redis is away.
        openQueue(settings, name, { offlineQueue: true, maxRetriesPerRequest: 1 }),
      ]),
    );
  }

  async list(queue: QueueName | undefined, limit: number): Promise<FailedJobView[]> {
    const views: FailedJobView[] = [];
    for (const [name, handle] of this.selected(queue)) {
      const jobs = await handle.getFailed(0, Math.max(0, limit - views.length - 1));
      views.push(...jobs.map((job) => view(name, job)));
      if (views.length >= limit) break;
    }
    return views.slice(0, limit);
  }

  async counts(): Promise<Record<QueueName, number>> {
    const counts = {} as Record<QueueName, number>;
    for (const [name, handle] of this.queues) counts[name] = await handle.getFailedCount();
    return counts;
  }

  /** Moves failed jobs (all of them, or the given ids) back to the waiting list, attempts reset. */
  async retry(queue: QueueName | undefined, ids: string[] = []): Promise<number> {
    let retried = 0;
    for (const [, handle] of this.selected(queue)) {
      // The ids first: a job that fails again at once must not be retried twice in one run.
      for (const id of ids.length > 0 ? ids : await this.failedIds(handle)) {
        const job = await handle.getJob(id);
        if (job && (await job.isFailed())) {
          await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
          retried++;
        }
      }
    }
    return retried;
  }

  private async failedIds(handle: Queue): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; ; start += PAGE) {
      const jobs = await handle.getFailed(start, start + PAGE - 1);
      ids.push(...jobs.map((job) => String(job.id)));
      if (jobs.length < PAGE) return ids;
    }
  }

  /** Deletes failed jobs for good. */
  async purge(queue: QueueName | undefined): Promise<number> {
    let purged = 0;
    for (const [, handle] of this.selected(queue)) {
      for (;;) {
        const removed = await handle.clean(0, 1_000, 'failed');
        purged += removed.length;
        if (removed.length === 0) break;
      }
    }
    return purged;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((handle) => handle.close()));
  }

  private selected(queue: QueueName | undefined): [QueueName, Queue][] {
    return [...this.queues].filter(([name]) => queue === undefined || name === queue);
  }
}

function view(queue: QueueName, job: Job): FailedJobView {
  const data = (job.data ?? {}) as Record<string, unknown>;
  const subject: Record<string, unknown> = {};
  for (const key of ['projectId', 'eventId', 'historyId', 'issueId', 'alertType']) {
    if (data[key] !== undefined) subject[key] = data[key];
  }
  if (Array.isArray(data.events))
    subject.events = (data.events as Record<string, unknown>[]).map(({ projectId, eventId }) => ({
      projectId,
      eventId,
    }));
  return {
    queue,
    id: String(job.id),
    name: job.name,
    failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    attempts: job.attemptsMade,
    reason: job.failedReason ?? '',
    subject,
  };
}
