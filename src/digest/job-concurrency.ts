/**
 * How many jobs a worker takes at once so that about `eventsInFlight` events are being digested: a
 * backlog of single-event jobs (queued at a low rate) and one of shared jobs (queued under load)
 * both fill the batches, and neither holds ten times the events, the memory and the locks. It starts
 * from full jobs: a worker that starts on a backlog takes its first jobs all at once, and single
 * events raise the concurrency within a few dozen jobs.
 */
export class JobConcurrency {
  private eventsPerJob: number;
  concurrency: number;

  constructor(
    private readonly eventsInFlight: number,
    largestJob: number,
  ) {
    this.eventsPerJob = largestJob;
    this.concurrency = Math.max(1, Math.round(eventsInFlight / largestJob));
  }

  /** Takes in the size of a job; true when the concurrency changed. */
  observe(events: number): boolean {
    this.eventsPerJob = this.eventsPerJob * 0.9 + events * 0.1;
    const concurrency = Math.max(1, Math.round(this.eventsInFlight / this.eventsPerJob));
    if (concurrency === this.concurrency) return false;
    this.concurrency = concurrency;
    return true;
  }
}
