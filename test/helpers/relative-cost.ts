import { performance } from 'node:perf_hooks';

/**
 * Cost checks for tests, always relative: the cost of one piece of work against another measured on
 * the same machine in the same test, never against a fixed number of milliseconds. A busy machine
 * slows both sides of a ratio alike, where it would push any fixed budget over. Absolute figures
 * belong in bench/.
 */

/** A batch shorter than this is mostly timer and call overhead: cheap work is timed in batches. */
const MIN_BATCH_MS = 0.5;
const MAX_CALLS_PER_BATCH = 100_000;

function batchMs(run: () => unknown, calls: number): number {
  const start = performance.now();
  for (let i = 0; i < calls; i++) run();
  return performance.now() - start;
}

/** How many calls of `run` make a batch long enough to time (runs it a few times: a warm-up too). */
function callsPerBatch(run: () => unknown): number {
  let calls = 1;
  while (calls < MAX_CALLS_PER_BATCH && batchMs(run, calls) < MIN_BATCH_MS) calls *= 4;
  return calls;
}

/**
 * How many times dearer the first piece of work is than the second, per call. Each is timed in
 * batches just long enough to time, short enough to run between two interruptions, in alternation
 * (so that a change of load meets both): the least of several batches is the work alone, on a busy
 * machine too, because noise (a GC pause, another process taking the core) only ever adds time. Long
 * batches would be interrupted in proportion to their length, and the longer work would lose more.
 * Further rounds of batches are timed, the least over all of them kept, while the ratio says `limit`
 * or more: a few unlucky batches cannot fail a test, work that really is dearer always does.
 */
function leastRatio(
  work: () => unknown,
  reference: () => unknown,
  limit: number,
  tries = 7,
  rounds = 3,
): number {
  const calls = [callsPerBatch(work), callsPerBatch(reference)];
  let workMs = Infinity;
  let referenceMs = Infinity;
  for (let round = 0; round < rounds; round++) {
    for (let attempt = 0; attempt < tries; attempt++) {
      workMs = Math.min(workMs, batchMs(work, calls[0]) / calls[0]);
      referenceMs = Math.min(referenceMs, batchMs(reference, calls[1]) / calls[1]);
    }
    if (workMs / referenceMs < limit) break;
  }
  return workMs / referenceMs;
}

/**
 * How many times dearer `big` is than `small`, for the same work on a small and a big input: linear
 * work grows as the input does, quadratic work as its square. Timed in rounds of `tries` batches
 * each, until it is below `limit` or for a few rounds: see leastRatio.
 */
export function growth(small: () => unknown, big: () => unknown, limit: number, tries?: number): number {
  return leastRatio(big, small, limit, tries);
}

/**
 * How many times dearer `subject` is than `reference`. Timed once each first, which is enough for
 * almost every case; when that says `limit` or more (a single timing may have met a GC pause or a
 * busy neighbour), both are timed again as leastRatio does.
 */
export function costRatio(subject: () => unknown, reference: () => unknown, limit: number): number {
  const first = batchMs(subject, 1) / Math.max(batchMs(reference, 1), Number.EPSILON);
  return first < limit ? first : leastRatio(subject, reference, limit);
}

/**
 * CPU milliseconds this process spends per round of `work` (which does `rounds` rounds), the least
 * of `tries` tries: for servers that run in the test's process, to compare what a request costs
 * with reference work measured the same way in the same test (other work shares the process, and
 * only ever adds to the figure).
 */
export async function leastCpuMsPerRound(
  work: () => Promise<void> | void,
  rounds: number,
  tries = 3,
): Promise<number> {
  let least = Infinity;
  for (let attempt = 0; attempt < tries; attempt++) {
    const started = process.cpuUsage();
    await work();
    const spent = process.cpuUsage(started);
    least = Math.min(least, (spent.user + spent.system) / 1000 / rounds);
  }
  return least;
}
