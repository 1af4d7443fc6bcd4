import type { Job, Queue } from 'bullmq';
import type { PersonMatch } from '../../events/events.repository';
import { emailOf } from './person-identifier';

const PAGE = 500;

/** The shape of a digest job's data as far as erasure reads it (see src/digest/digest-job.ts). */
interface FailedJobData {
  projectId?: unknown;
  /** An `event` job: the event item's JSON text as the SDK sent it. */
  payload?: unknown;
  /** An `events` job: several events, each with its own payload. */
  events?: unknown;
}

/**
 * Removes the person from the failed set of the digest queue: the payloads kept there were never
 * stored, so never scrubbed, and hold whatever the SDK sent. A job of the project whose data holds
 * the identifier's value as a whole JSON string (any case for an e-mail address) is deleted; a job
 * of several events keeps its other events. Payloads that failed because they are not valid JSON
 * are read as text for the same reason: the value is matched wherever it is, not only under
 * `user`. Returns the jobs deleted or changed (`dryRun`: the jobs that would be, none touched).
 */
export async function eraseFromFailedDigestJobs(
  queue: Queue,
  projectId: number,
  match: PersonMatch,
  { dryRun = false }: { dryRun?: boolean } = {},
): Promise<number> {
  const holds = holderOf(match);
  let erased = 0;
  // The ids first: deleting while paging would skip jobs.
  for (const id of await failedIds(queue)) {
    const job = await queue.getJob(id);
    if (!job || !(await job.isFailed())) continue;
    const data = job.data as FailedJobData | null;
    if (!data || (data.projectId !== projectId && !Array.isArray(data.events))) continue;
    if (await eraseFromJob(job, data, projectId, holds, dryRun)) erased++;
  }
  return erased;
}

async function eraseFromJob(
  job: Job,
  data: FailedJobData,
  projectId: number,
  holds: (text: string) => boolean,
  dryRun: boolean,
): Promise<boolean> {
  if (Array.isArray(data.events)) {
    const events = data.events as FailedJobData[];
    const kept = events.filter((event) => event.projectId !== projectId || !holds(textOf(event)));
    if (kept.length === events.length) return false;
    if (dryRun) return true;
    if (kept.length === 0) await job.remove();
    else await job.updateData({ ...data, events: kept });
    return true;
  }
  if (!holds(textOf(data))) return false;
  if (!dryRun) await job.remove();
  return true;
}

/** An event's payload as sent, or the whole data of any other job (a feedback, a check-in). */
function textOf(data: FailedJobData): string {
  return typeof data.payload === 'string' ? data.payload : JSON.stringify(data);
}

function holderOf(match: PersonMatch): (text: string) => boolean {
  const quoted = JSON.stringify(match.value);
  if (emailOf(match) === null) return (text) => text.includes(quoted);
  const lower = quoted.toLowerCase();
  return (text) => text.toLowerCase().includes(lower);
}

async function failedIds(queue: Queue): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; ; start += PAGE) {
    const jobs = await queue.getFailed(start, start + PAGE - 1);
    ids.push(...jobs.map((job) => String(job.id)));
    if (jobs.length < PAGE) return ids;
  }
}
