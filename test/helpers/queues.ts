import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { QueueName } from '../../src/common/queues';
import { digestJobId, QueuedEvent, DigestJobName } from '../../src/digest/digest-job';
import { openQueue as openInstallationQueue } from '../../src/jobs/queue-layout';
import type { TestApp } from './app';

/** A BullMQ handle on one of the app's queues (same Redis, same key layout); `close()` it. */
export function openQueue(t: Pick<TestApp, 'config'>, name: QueueName): Queue {
  return openInstallationQueue(t.config, name, { offlineQueue: true });
}

/** Enqueues an event exactly as ingest does, bypassing HTTP. Returns the event id. */
export async function enqueueEvent(
  queue: Queue,
  projectId: number,
  event: Record<string, unknown>,
  eventId = randomUUID(),
): Promise<string> {
  const data: QueuedEvent = {
    projectId,
    eventId,
    receivedAt: Date.now(),
    payload: JSON.stringify({ event_id: eventId.replace(/-/g, ''), ...event }),
  };
  await queue.add(DigestJobName.Event, data, {
    jobId: digestJobId(projectId, eventId),
    removeOnComplete: true,
    removeOnFail: 1000,
    attempts: 3,
    backoff: { type: 'exponential', delay: 200 },
  });
  return eventId;
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result !== undefined && result !== false) return result;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An event as GET /api/events/:id serves it: its payload, with the row's columns. */
export type ServedEvent = Record<string, unknown> & { id: string; issue_id: number; project_id: number };

/** Polls GET /api/events/:id until the event is stored (200), and returns it; fails after `timeoutMs`. */
export function storedEvent(
  app: Pick<TestApp, 'api'>,
  eventId: string,
  timeoutMs?: number,
): Promise<ServedEvent> {
  return eventually(async () => {
    const response = await app.api().get(`/api/events/${eventId}`);
    return response.status === 200 && (response.body as ServedEvent);
  }, timeoutMs);
}

/** Waits until /health/ready of every app given reports an empty digest backlog, all in one round. */
export async function backlogDrained(
  app: Pick<TestApp, 'http'>,
  ...others: Pick<TestApp, 'http'>[]
): Promise<void> {
  await eventually(async () => {
    for (const each of [app, ...others]) {
      if ((await each.http().get('/health/ready').expect(200)).body.digest_backlog !== 0) return false;
    }
    return true;
  });
}
