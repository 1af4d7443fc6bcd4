import { Batcher } from './batcher';

describe('Batcher', () => {
  it('batches what is submitted in one event-loop turn and answers each submitter', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        batches.push(items);
        return items.map((item) => item * 10);
      },
      { maxSize: 100, maxWaitMs: 0 },
    );
    const results = await Promise.all([1, 2, 3].map((item) => batcher.submit(item)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('flushes a full batch at once and waits at most maxWaitMs for the rest', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, void>(
      async (items) => {
        batches.push(items);
        return items.map(() => undefined);
      },
      { maxSize: 2, maxWaitMs: 5 },
    );
    await Promise.all([1, 2, 3].map((item) => batcher.submit(item)));
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it('rejects every submitter of a failed batch', async () => {
    const batcher = new Batcher<number, void>(
      async () => {
        throw new Error('down');
      },
      { maxSize: 10, maxWaitMs: 0 },
    );
    const outcomes = await Promise.allSettled([batcher.submit(1), batcher.submit(2)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });
});
