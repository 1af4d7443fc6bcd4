import type { Job, JobsOptions } from 'bullmq';
import type { QueuedCheckIn } from '../monitors/crons/check-in-record';
import type { QueuedFeedback } from '../feedback/feedback-record';

/** What ingest hands to the digest for one event: the event item exactly as the SDK sent it, plus envelope facts. */
export interface QueuedEvent {
  projectId: number;
  /** Normalised (lowercase, dashed) UUID. */
  eventId: string;
  /** Epoch milliseconds when ingest accepted the envelope. */
  receivedAt: number;
  /** The event item's JSON text (an SDK event payload). Parsed only in the worker. */
  payload: string;
  /** From the envelope header, when the event payload itself lacks them. */
  sdk?: { name?: string; version?: string };
}

/** The data of an `events` job: the events ingest accepted together (see DigestProducer). */
export interface QueuedEvents {
  events: QueuedEvent[];
}

export type DigestJobData = QueuedEvent | QueuedEvents;

export enum DigestJobName {
  /** One event; its job id (digestJobId) makes a re-sent event queued once while the job exists. */
  Event = 'event',
  /** Several events accepted together, under one job id of BullMQ's choosing. */
  Events = 'events',
  /** One user feedback (QueuedFeedback), stored by FeedbackStoreService. */
  Feedback = 'feedback',
  /** One cron monitor check-in (QueuedCheckIn), stored by CheckInStoreService. */
  CheckIn = 'check_in',
}

/**
 * A check-in's job. No job id of its own: storing is idempotent by the check-in's id, and a job id
 * kept in the failed set would make BullMQ ignore a later check-in of the same id and status.
 */
export function checkInJob(checkIn: QueuedCheckIn): { name: DigestJobName; data: QueuedCheckIn; opts: JobsOptions } {
  return { name: DigestJobName.CheckIn, data: checkIn, opts: DIGEST_JOB_OPTIONS };
}

/** A feedback's job: its id makes a feedback re-sent while the first copy is queued queued once. */
export function feedbackJob(feedback: QueuedFeedback): {
  name: DigestJobName;
  data: QueuedFeedback;
  opts: JobsOptions;
} {
  return {
    name: DigestJobName.Feedback,
    data: feedback,
    opts: { ...DIGEST_JOB_OPTIONS, jobId: `feedback_${digestJobId(feedback.projectId, feedback.eventId)}` },
  };
}

/**
 * At most this many events share a job. A job is the unit Redis stores, hands out and acknowledges:
 * sharing it cuts the queue's bookkeeping per event (a few Redis calls per job) by as much; beyond
 * about ten the saving is small, and every event of a job waits for the slowest of its batch.
 */
export const MAX_EVENTS_PER_JOB = 10;

/** BullMQ refuses custom job ids containing ':' (its key separator), hence '_'. */
export function digestJobId(projectId: number, eventId: string): string {
  return `${projectId}_${eventId}`;
}

/** The events of a digest job, whichever its kind (single-event jobs predate `events` jobs). */
export function eventsOfJob(data: DigestJobData): QueuedEvent[] {
  return 'events' in data ? data.events : [data];
}

/** What a job looks like on the queue: the name, data and options `Queue.addBulk` takes. */
export function digestJob(events: QueuedEvent[]): {
  name: DigestJobName;
  data: DigestJobData;
  opts: JobsOptions;
} {
  if (events.length === 1) {
    const [event] = events;
    return {
      name: DigestJobName.Event,
      data: event,
      opts: { ...DIGEST_JOB_OPTIONS, jobId: digestJobId(event.projectId, event.eventId) },
    };
  }
  return { name: DigestJobName.Events, data: { events }, opts: DIGEST_JOB_OPTIONS };
}

/**
 * The job of one event split out of shared job `parentId` after it failed there. Its own id, not
 * the event's: a job kept in the failed set under the event's id (an earlier copy that failed)
 * would make BullMQ ignore it.
 */
export function splitOutJob(event: QueuedEvent, parentId: string): ReturnType<typeof digestJob> {
  const job = digestJob([event]);
  return {
    ...job,
    opts: { ...job.opts, jobId: `${digestJobId(event.projectId, event.eventId)}_of_${parentId}` },
  };
}

/** Splits events into the jobs that carry them, MAX_EVENTS_PER_JOB at most each, in order. */
export function digestJobs(events: QueuedEvent[]): ReturnType<typeof digestJob>[] {
  const jobs: ReturnType<typeof digestJob>[] = [];
  for (let start = 0; start < events.length; start += MAX_EVENTS_PER_JOB)
    jobs.push(digestJob(events.slice(start, start + MAX_EVENTS_PER_JOB)));
  return jobs;
}

/** For logs and `jobs:failed`: which events a job is about, never their payloads. */
export function describeDigestJob(job: Pick<Job<DigestJobData>, 'data'>): string {
  const data = job.data as unknown as Partial<QueuedCheckIn>;
  if (typeof data.slug === 'string' && typeof data.status === 'string') {
    return `check-in of monitor ${data.slug} of project ${data.projectId}`;
  }
  const events = eventsOfJob(job.data);
  if (events.length === 1) return `event ${events[0].eventId} of project ${events[0].projectId}`;
  const projects = [...new Set(events.map((event) => event.projectId))].join(', ');
  return `${events.length} events of project(s) ${projects}`;
}

/**
 * Options of every digest job. A database outage never uses up attempts (the processor pauses the
 * queue and puts the job back); attempts and backoff only bound the retries of unexpected errors,
 * 8 attempts from 1 s apart doubling (about 2 minutes in all). Failed jobs are kept for inspection
 * and `jobs:retry`.
 */
export const DIGEST_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: true,
  removeOnFail: 10_000,
  attempts: 8,
  backoff: { type: 'exponential', delay: 1_000 },
};
