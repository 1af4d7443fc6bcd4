import type { Worker } from 'bullmq';

/**
 * Stops a worker taking jobs, gives the jobs it holds `graceMs` to finish, then closes it whether
 * they did or not. A job left unfinished is given back by BullMQ's stalled-job check to another
 * worker, as if this one had been killed; what it never does is hold the process's shutdown forever
 * (a job stuck on a command to a Redis Cluster node that was lost would).
 */
export async function closeWorkerWithin(worker: Worker, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  try {
    // Pausing stops it taking jobs and waits for those it holds.
    // A pause that fails (Redis away) or loses the race must neither skip the close nor go unhandled.
    await Promise.race([worker.pause().catch(() => undefined), grace]);
  } finally {
    clearTimeout(timer);
  }
  await worker.close(true);
}
