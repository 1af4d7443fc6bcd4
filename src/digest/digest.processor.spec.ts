import { Job, Worker } from 'bullmq';
import type { AppConfig } from '../config/app-config';
import type { WorkerHeartbeat } from '../jobs/worker-heartbeat';
import type { RollupFolder } from '../rollups/rollup-folder';
import type { DigestJobData, QueuedEvent } from './digest-job';
import { DigestProcessor } from './digest.processor';
import type { DigestService } from './digest.service';
import type { FailedDigestSweeper } from './failed-digest-sweeper';

/** The processor with a digest that fails some events as told, and no queue behind it. */
function processorFailing(failureOf: (event: QueuedEvent) => unknown) {
  const digest = {
    prepare: async (event: QueuedEvent) => event,
    digest: async (event: QueuedEvent) => {
      const failure = failureOf(event);
      if (failure) throw failure;
    },
  } as unknown as DigestService;
  const paused: string[] = [];
  const heartbeat = {
    tookJob: () => undefined,
    databaseRefused: (reason: string) => paused.push(reason),
    databaseAnswered: () => paused.push('answered'),
  } as unknown as WorkerHeartbeat;
  const processor = new DigestProcessor(
    digest,
    { DIGEST_CONCURRENCY: 200 } as AppConfig,
    heartbeat,
    {} as RollupFolder,
    { sweepSoon: () => undefined } as unknown as FailedDigestSweeper,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
  );
  // The worker BullMQ would give it: only its rate limit (the queue-wide pause) is used here.
  Object.defineProperty(processor, 'worker', { value: { concurrency: 1, rateLimit: async () => undefined } });
  const job = (eventId: string) =>
    ({ id: eventId, data: { projectId: 1, eventId, receivedAt: 0, payload: '{}' } }) as Job<DigestJobData>;
  return { processor, job, paused };
}

const outcome = (work: Promise<void>) =>
  work.then(
    () => 'stored',
    (error: Error) => (error.name === Worker.RateLimitError().name ? 'paused' : `failed: ${error.message}`),
  );

const lostConnection = () => new Error('Connection terminated unexpectedly');
const diskFull = () =>
  Object.assign(new Error('could not extend file'), { code: '53100', severity: 'ERROR' });

describe('DigestProcessor: outages', () => {
  it('waits out an outage however long it lasts, using no attempt', async () => {
    const { processor, job } = processorFailing(() => lostConnection());
    for (let round = 0; round < 10; round++)
      expect(await outcome(processor.process(job('a')))).toBe('paused');
  });

  it('waits out a full disk even while other events are stored between its tries', async () => {
    // A row that fits in a page it has is stored; an event that needs a new page is refused.
    const { processor, job } = processorFailing((event) =>
      event.eventId === 'big' ? diskFull() : undefined,
    );
    for (let round = 0; round < 10; round++) {
      expect(await outcome(processor.process(job('big')))).toBe('paused');
      expect(await outcome(processor.process(job(`small-${round}`)))).toBe('stored');
    }
  });

  it('stops pausing everyone for one event whose statement loses the connection while others are stored', async () => {
    const { processor, job } = processorFailing((event) =>
      event.eventId === 'poison' ? lostConnection() : undefined,
    );
    expect(await outcome(processor.process(job('poison')))).toBe('paused');
    expect(await outcome(processor.process(job('ok-1')))).toBe('stored');
    expect(await outcome(processor.process(job('poison')))).toBe('paused');
    expect(await outcome(processor.process(job('ok-2')))).toBe('stored');
    expect(await outcome(processor.process(job('poison')))).toBe(
      'failed: failed while the database stored other events: Connection terminated unexpectedly',
    );
    // Its retries (with backoff) no longer pause the queue.
    expect(await outcome(processor.process(job('poison')))).toMatch(/^failed: /);
  });

  it('says the database answers only when an event reached it', async () => {
    const invalid = Object.assign(new Error('not json'), { name: 'InvalidEventError' });
    let down = true;
    const { processor, job, paused } = processorFailing((event) =>
      event.eventId === 'a' && down ? lostConnection() : undefined,
    );
    expect(await outcome(processor.process(job('a')))).toBe('paused');
    // A job whose only event is invalid never asked the database.
    const digest = (processor as unknown as { digest: DigestService }).digest;
    const prepare = digest.prepare.bind(digest);
    digest.prepare = async (event) => {
      if (event.eventId === 'bad') throw invalid;
      return prepare(event);
    };
    await outcome(processor.process(job('bad')));
    expect(paused.filter((entry) => entry === 'answered')).toEqual([]);
    down = false;
    expect(await outcome(processor.process(job('a')))).toBe('stored');
    expect(paused.at(-1)).toBe('answered');
  });
});
