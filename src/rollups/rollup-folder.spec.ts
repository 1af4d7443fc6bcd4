import type { RollupsRepository } from './rollups.repository';
import { FOLD_EVERY_MS, RollupFolder } from './rollup-folder';

/** A repository whose folds are recorded and answered as the test says. */
function repository(answer: () => Promise<number> = () => Promise.resolve(0)) {
  const calls: { at: number; issueId?: number }[] = [];
  let running = 0;
  let overlapped = false;
  const fake = {
    fold: async (_limit: number, issueId?: number) => {
      calls.push({ at: Date.now(), issueId });
      running++;
      if (running > 1) overlapped = true;
      try {
        return await answer();
      } finally {
        running--;
      }
    },
    waitingIssues: () => Promise.resolve([] as number[]),
    setAside: () => Promise.resolve(0),
  };
  return { fake: fake as unknown as RollupsRepository, calls, overlapped: () => overlapped };
}

describe('RollupFolder', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('folds at once when the digest is idle', async () => {
    const { fake, calls } = repository();
    const folder = new RollupFolder(fake);
    folder.batchStored(false);
    await jest.advanceTimersByTimeAsync(0);
    expect(calls.map((call) => call.at)).toEqual([0]);
    folder.onApplicationShutdown();
  });

  it('folds within a second under steady load, however often batches commit', async () => {
    const { fake, calls } = repository();
    const folder = new RollupFolder(fake);
    for (let t = 0; t < 2_500; t += 100) {
      folder.batchStored(true);
      await jest.advanceTimersByTimeAsync(100);
    }
    // The batch stored at 1 s, right after the first fold, waits for the next second like any other.
    expect(calls.map((call) => call.at)).toEqual([FOLD_EVERY_MS, 2 * FOLD_EVERY_MS]);
    folder.onApplicationShutdown();
  });

  it('never runs two folds at once, and folds again after one that was asked for meanwhile', async () => {
    let release: (() => void) | undefined;
    const { fake, calls, overlapped } = repository(
      () => new Promise<number>((resolve) => (release = () => resolve(0))),
    );
    const folder = new RollupFolder(fake);
    folder.batchStored(false);
    await jest.advanceTimersByTimeAsync(0);
    folder.batchStored(false);
    folder.batchStored(false);
    await jest.advanceTimersByTimeAsync(500);
    expect(calls).toHaveLength(1);
    release?.();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(2);
    release?.();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(calls).toHaveLength(2);
    expect(overlapped()).toBe(false);
    folder.onApplicationShutdown();
  });

  it('waits longer after each failure, and as usual again after a success', async () => {
    let failures = 3;
    const { fake, calls } = repository(() =>
      failures-- > 0
        ? Promise.reject(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }))
        : Promise.resolve(0),
    );
    const folder = new RollupFolder(fake);
    folder.batchStored(false);
    await jest.advanceTimersByTimeAsync(10_000);
    // Failed at 0, retried 1 s later, then 2 s and 4 s later; the fourth succeeded.
    expect(calls.map((call) => call.at)).toEqual([0, 1_000, 3_000, 7_000]);
    folder.batchStored(false);
    await jest.advanceTimersByTimeAsync(0);
    expect(calls.at(-1)?.at).toBe(10_000);
    folder.onApplicationShutdown();
  });

  it('does nothing after shutdown, sweep included', async () => {
    const { fake, calls } = repository();
    const folder = new RollupFolder(fake);
    folder.onApplicationBootstrap();
    folder.batchStored(true);
    folder.onApplicationShutdown();
    folder.batchStored(false);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([]);
  });

  it('sweeps every 10 s for what stopped workers left', async () => {
    const { fake, calls } = repository();
    const folder = new RollupFolder(fake);
    folder.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(25_000);
    expect(calls.map((call) => Math.floor(call.at / 1_000))).toEqual([10, 20]);
    folder.onApplicationShutdown();
  });
});
