import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  it('runs at most its limit at once, the others in turn, and frees a place when a task fails', async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task =
      (n: number, fail = false) =>
      async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        order.push(n);
        if (fail) throw new Error(`task ${n}`);
        return n;
      };
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => semaphore.run(task(n, n === 2))));
    expect(most).toBe(2);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(order.slice(0, 2).sort()).toEqual([1, 2]);
    expect(order).toHaveLength(5);
  });
});
