import type { JobsOptions } from 'bullmq';

/** What ingest hands to the digest: the event item exactly as the SDK sent it, plus envelope facts. */
export interface DigestJob {
  projectId: number;
  /** Normalised (lowercase, dashed) UUID; also the BullMQ job id suffix, so a re-sent event is queued once. */
  eventId: string;
  /** Epoch milliseconds when ingest accepted the envelope. */
  receivedAt: number;
  /** The event item's JSON text (an SDK event payload). Parsed only in the worker. */
  payload: string;
  /** From the envelope header, when the event payload itself lacks them. */
  sdk?: { name?: string; version?: string };
}

export enum DigestJobName {
  Event = 'event',
}

/** BullMQ refuses custom job ids containing ':' (its key separator), hence '_'. */
export function digestJobId(projectId: number, eventId: string): string {
  return `${projectId}_${eventId}`;
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
